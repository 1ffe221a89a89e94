"""instr_profile: raw IR PGO profiles (.profraw), optionally with raw MemProf profiles of the
same binary → one indexed .profdata for -fprofile-use (and -fmemory-profile-use)."""

load("//rules:llvm_releases.bzl", "SUPPORTED_LLVM_VERSIONS")
load(":helpers.bzl", "instr_format_version", "merge_flags")
load(":merge_tree.bzl", "merge_tree")
load(":profile_rule.bzl", "TOOLCHAIN_TYPE", "path_of", "pgo_tools", "profiled_binary")
load(":providers.bzl", "PgoProfileInfo")
load(":transitions.bzl", "ALLOWLIST_ATTRS", "instrument_transition")

def _impl(ctx):
    pgo, version = pgo_tools(ctx)
    raw = sorted(ctx.files.raw, key = path_of)
    memprof_raw = sorted(ctx.files.memprof_raw, key = path_of)
    if not raw:
        fail(("%s: no raw profiles: `raw` is empty. Run the instrumented binary " +
              "(pgo_instrumented_binary(kind = \"instr\")) with " +
              "LLVM_PROFILE_FILE=<dir>/<name>-%%p.profraw and list the .profraw files in `raw`") % ctx.label)
    if memprof_raw and not ctx.attr.binary:
        fail(("%s: memprof_raw needs `binary`: the very binary that wrote the raw profiles " +
              "(pgo_instrumented_binary(kind = \"instr_memprof\")); MemProf addresses are " +
              "symbolized against it") % ctx.label)
    inputs = sorted(raw + memprof_raw, key = path_of)
    if ctx.attr.shard_size and len(inputs) > ctx.attr.shard_size and ctx.attr.failure_mode != "any":
        fail(("%s: shard_size needs failure_mode = \"any\": a shard whose inputs are all bad " +
              "would fail where one merge of everything would not") % ctx.label)
    out = ctx.actions.declare_file(ctx.label.name + ".profdata")
    flags = merge_flags(version, "", ctx.attr.failure_mode, ctx.attr.jobs)
    if not ctx.attr.merge_contexts:
        if ctx.attr.shard_size and len(inputs) > ctx.attr.shard_size:
            fail(("%s: shard_size needs merge_contexts = True: appended MemProf contexts " +
                  "depend on the order runs are merged in; set shard_size = 0") % ctx.label)
        flags.append("--memprof-merge-contexts=false")

    # With `binary`, every action reading raw profiles checks their build ids against it (a
    # .profraw or raw MemProf profile of another build fails, naming both ids) and writes its
    # id to <name>.buildid.
    leaf_args, leaf_inputs, first_outputs, first_args = [], [], [], []
    binary = None
    build_id = None
    if ctx.attr.binary:
        binary, _ = profiled_binary(ctx)
        build_id = ctx.actions.declare_file(ctx.label.name + ".buildid")
        leaf_args = ["--profiled-binary", binary]
        leaf_inputs = [binary]
        first_outputs = [build_id]
        first_args = ["--build-id-output", build_id]
    merge_tree(
        ctx,
        pgo.merge_files_to_run,
        [("", f) for f in inputs],
        out,
        ctx.attr.shard_size,
        leaf_args = leaf_args,
        leaf_inputs = leaf_inputs,
        partial_args = flags,
        final_args = flags,
        mnemonic = "PgoInstrMerge",
        what = "instrumented profile %s (LLVM %d)" % (ctx.label, version),
        first_leaf_outputs = first_outputs,
        first_leaf_args = first_args,
        partial_ext = ".profdata",
        partial_state = ctx.attr.merge_contexts and bool(memprof_raw),
    )
    providers = [
        DefaultInfo(files = depset([out])),
        PgoProfileInfo(
            file = out,
            kind = "instr",
            format_version = instr_format_version(version, bool(memprof_raw)),
            llvm_version = version,
            profiled_build_id = "",
            build_id_file = build_id,
            profiled_binary = binary,
            has_memprof = bool(memprof_raw),
        ),
    ]
    if build_id:
        providers.append(OutputGroupInfo(build_id = depset([build_id])))
    return providers

instr_profile = rule(
    implementation = _impl,
    doc = """Merges raw IR PGO profiles (.profraw, from a pgo_instrumented_binary(kind = "instr")
run with LLVM_PROFILE_FILE=...) into `<name>.profdata` for -fprofile-use (mnemonic
PgoInstrMerge), as `llvm-profdata merge` does, in shards of `shard_size` when set.

With `memprof_raw` (raw MemProf profiles of the same run, from kind = "instr_memprof") and
`binary`, the one file holds the MemProf records too, as `llvm-profdata merge -o OUT
--profiled-binary BIN a.profraw b.memprofraw` writes it; pgo_cc_binary(instr_profile = ...)
then compiles with -fprofile-use= and -fmemory-profile-use= of that file (clang 18+).""",
    attrs = dict({
        "raw": attr.label_list(
            allow_files = True,
            doc = ".profraw files (or indexed .profdata to add, e.g. the first profile of a " +
                  "CS-IR-PGO training). Order does not matter (sorted by path).",
        ),
        "memprof_raw": attr.label_list(
            allow_files = True,
            doc = "Raw MemProf profiles (MEMPROF_OPTIONS=log_path=...) of `binary`, merged " +
                  "into the same indexed file. Needs `binary`.",
        ),
        "binary": attr.label(
            allow_files = True,
            cfg = instrument_transition,
            doc = "The profiled binary: a file (preferred: the exact binary that ran) or an " +
                  "executable target, then rebuilt as pgo_instrumented_binary(kind = " +
                  "\"instr_memprof\") builds it. Needed by memprof_raw; optional otherwise, " +
                  "where it makes the merge check the .profraw files' build ids against it.",
        ),
        "merge_contexts": attr.bool(
            default = True,
            doc = "MemProf records: merge allocation contexts with the same call stack from " +
                  "all runs into one MIB (the merge tool's default; see memprof_profile). " +
                  "False appends every run's contexts as `llvm-profdata merge -j 1` does (its " +
                  "bytes).",
        ),
        "llvm_version": attr.string(
            doc = "LLVM release to write for (" + ", ".join([str(v) for v in SUPPORTED_LLVM_VERSIONS]) +
                  "); default: the toolchain's.",
        ),
        "failure_mode": attr.string(default = "any", doc = "any | all | warn, as llvm-profdata's --failure-mode."),
        "jobs": attr.int(default = 0, doc = "-j for the merge; 0 = the tool's default."),
        "shard_size": attr.int(
            default = 0,
            doc = "Merge at most this many profiles per action: shards in parallel, then a " +
                  "final merge of the indexed partials (a tree when needed). 0 = one action.",
        ),
    }, **ALLOWLIST_ATTRS),
    toolchains = [TOOLCHAIN_TYPE],
)

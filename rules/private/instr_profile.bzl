"""instr_profile: raw IR PGO profiles (.profraw) → an indexed .profdata for -fprofile-use."""

load("//rules:llvm_releases.bzl", "SUPPORTED_LLVM_VERSIONS")
load(":helpers.bzl", "instr_format_version", "merge_flags")
load(":merge_tree.bzl", "merge_tree")
load(":profile_rule.bzl", "TOOLCHAIN_TYPE", "path_of", "pgo_tools")
load(":providers.bzl", "PgoProfileInfo")

def _impl(ctx):
    pgo, version = pgo_tools(ctx)
    raw = sorted(ctx.files.raw, key = path_of)
    if not raw:
        fail(("%s: no raw profiles: `raw` is empty. Run the instrumented binary " +
              "(pgo_instrumented_binary(kind = \"instr\")) with " +
              "LLVM_PROFILE_FILE=<dir>/<name>-%%p.profraw and list the .profraw files in `raw`") % ctx.label)
    if ctx.attr.shard_size and len(raw) > ctx.attr.shard_size and ctx.attr.failure_mode != "any":
        fail(("%s: shard_size needs failure_mode = \"any\": a shard whose inputs are all bad " +
              "would fail where one merge of everything would not") % ctx.label)
    out = ctx.actions.declare_file(ctx.label.name + ".profdata")
    flags = merge_flags(version, "", ctx.attr.failure_mode, ctx.attr.jobs)
    merge_tree(
        ctx,
        pgo.merge_files_to_run,
        [("", f) for f in raw],
        out,
        ctx.attr.shard_size,
        leaf_args = [],
        leaf_inputs = [],
        partial_args = flags,
        final_args = flags,
        mnemonic = "PgoInstrMerge",
        what = "instrumented profile %s (LLVM %d)" % (ctx.label, version),
        partial_ext = ".profdata",
    )
    return [
        DefaultInfo(files = depset([out])),
        PgoProfileInfo(
            file = out,
            kind = "instr",
            format_version = instr_format_version(version),
            llvm_version = version,
            profiled_build_id = "",
            build_id_file = None,
            profiled_binary = None,
        ),
    ]

instr_profile = rule(
    implementation = _impl,
    doc = """Merges raw IR PGO profiles (.profraw, from a pgo_instrumented_binary(kind = "instr")
run with LLVM_PROFILE_FILE=...) into `<name>.profdata` for -fprofile-use (mnemonic
PgoInstrMerge), as `llvm-profdata merge` does, in shards of `shard_size` when set. Not yet:
MemProf raw profiles of the same binary in the same file (give them to memprof_profile).""",
    attrs = {
        "raw": attr.label_list(
            allow_files = True,
            doc = ".profraw files (or indexed .profdata to add). Order does not matter (sorted by path).",
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
    },
    toolchains = [TOOLCHAIN_TYPE],
)

"""memprof_profile: raw MemProf profiles + the profiled binary → an indexed .profdata."""

load("//rules:llvm_releases.bzl", "SUPPORTED_LLVM_VERSIONS")
load(":helpers.bzl", "memprof_format_version", "merge_flags")
load(":merge_tree.bzl", "merge_tree")
load(":profile_rule.bzl", "TOOLCHAIN_TYPE", "path_of", "pgo_tools", "profiled_binary")
load(":providers.bzl", "PgoProfileInfo")
load(":transitions.bzl", "ALLOWLIST_ATTRS", "instrument_transition")

def _impl(ctx):
    pgo, version = pgo_tools(ctx)
    binary, binary_target = profiled_binary(ctx)

    raw = sorted(ctx.files.raw, key = path_of)
    if not raw and ctx.attr.train:
        if not binary_target:
            fail("%s: train = True needs `binary` to be an executable target, not a file" % ctx.label)
        raw_dir = ctx.actions.declare_directory(ctx.label.name + ".memprofraw")
        ctx.actions.run_shell(
            outputs = [raw_dir],
            tools = [binary_target[DefaultInfo].files_to_run],
            command = 'bin="$1"; out="$2"; shift 2; MEMPROF_OPTIONS="log_path=$out/raw" "$bin" "$@" > "$out.log" 2>&1 || { cat "$out.log" >&2; exit 1; }; rm -f "$out.log"; ls "$out"/raw.* > /dev/null',
            arguments = [binary.path, raw_dir.path] + ctx.attr.train_args,
            env = ctx.attr.train_env,
            mnemonic = "PgoMemProfTrain",
            progress_message = "Training %s for MemProf profile %s" % (binary_target.label, ctx.label),
        )
        raw = [raw_dir]
    if not raw:
        fail(("%s: no raw MemProf profiles: `raw` is empty. Run the instrumented binary with " +
              "MEMPROF_OPTIONS=log_path=<dir>/<name> and list the files it writes in `raw` " +
              "(or set train = True with an executable `binary` target).") % ctx.label)

    out = ctx.actions.declare_file(ctx.label.name + ".profdata")
    build_id = ctx.actions.declare_file(ctx.label.name + ".buildid")
    flags = merge_flags(version, ctx.attr.memprof_version, ctx.attr.failure_mode, ctx.attr.jobs)
    if not ctx.attr.merge_contexts:
        flags.append("--memprof-merge-contexts=false")
    if ctx.attr.shard_size and len(raw) > ctx.attr.shard_size:
        if ctx.attr.failure_mode != "any":
            fail(("%s: shard_size needs failure_mode = \"any\": a shard whose inputs are all bad " +
                  "would fail where one merge of everything would not") % ctx.label)
        if not ctx.attr.merge_contexts:
            fail(("%s: shard_size needs merge_contexts = True: appended contexts (llvm-profdata's " +
                  "layout) depend on the order runs are merged in, so partial profiles cannot " +
                  "give the one-action bytes; set shard_size = 0") % ctx.label)

    # The shards index raw profiles against the binary; the merges above them read indexed
    # partial profiles with their partial states (same flags; the states make the merged
    # contexts' order-dependent counters exact: the same bytes as one merge of everything).
    merge_tree(
        ctx,
        pgo.merge_files_to_run,
        [("", f) for f in raw],
        out,
        ctx.attr.shard_size,
        leaf_args = ["--profiled-binary", binary],
        leaf_inputs = [binary],
        partial_args = flags,
        final_args = flags,
        mnemonic = "PgoMemProfIndex",
        what = "MemProf profile %s (LLVM %d)" % (ctx.label, version),
        first_leaf_outputs = [build_id],
        first_leaf_args = ["--build-id-output", build_id],
        partial_ext = ".profdata",
        partial_state = ctx.attr.merge_contexts,
    )
    return [
        DefaultInfo(files = depset([out])),
        OutputGroupInfo(build_id = depset([build_id])),
        PgoProfileInfo(
            file = out,
            kind = "memprof",
            format_version = memprof_format_version(version, ctx.attr.memprof_version),
            llvm_version = version,
            profiled_build_id = "",
            build_id_file = build_id,
            profiled_binary = binary,
        ),
    ]

memprof_profile = rule(
    implementation = _impl,
    doc = """Indexes raw MemProf profiles (`MEMPROF_OPTIONS=log_path=...` output of a binary built
with -fmemory-profile) against the profiled binary into `<name>.profdata`, in one cached action
(mnemonic PgoMemProfIndex) run by the merge tool of the registered rules_pgo toolchain. The merge
fails naming both build ids when a raw profile comes from another binary.""",
    attrs = dict({
        "raw": attr.label_list(
            allow_files = True,
            doc = "Raw MemProf profiles. Order does not matter (sorted by path).",
        ),
        "binary": attr.label(
            mandatory = True,
            allow_files = True,
            cfg = instrument_transition,
            doc = "The profiled binary: a file (preferred: the exact binary that ran) or an " +
                  "executable target, then rebuilt with MemProf instrumentation and the " +
                  "profile flag reset (no dependency cycle). Raw profiles must come from " +
                  "this very binary; the merge checks build ids.",
        ),
        "llvm_version": attr.string(
            doc = "LLVM release to write for (" + ", ".join([str(v) for v in SUPPORTED_LLVM_VERSIONS]) +
                  "); default: the toolchain's.",
        ),
        "memprof_version": attr.string(doc = "MemProf record version (--memprof-version); default: the release's default."),
        "failure_mode": attr.string(default = "any", doc = "any | all | warn, as llvm-profdata's --failure-mode."),
        "jobs": attr.int(default = 0, doc = "-j for the merge; 0 = the tool's default."),
        "shard_size": attr.int(
            default = 0,
            doc = "Index at most this many raw profiles per action: shards in parallel (remote " +
                  "execution; the cache keeps unchanged shards), then a final merge of the " +
                  "indexed partial profiles (a tree when needed). 0 = one action. The same " +
                  "records as one action but for the MemInfoBlock fields the heap profiler's " +
                  "merge counts pairwise (NumLifetimeOverlaps, NumSameAllocCpu, " +
                  "NumSameDeallocCpu, NumMigratedCpu), which clang does not read (docs/bazel.md). " +
                  "Needs failure_mode = \"any\" and merge_contexts = True.",
        ),
        "merge_contexts": attr.bool(
            default = True,
            doc = "Merge allocation contexts with the same call stack from all runs into one " +
                  "MIB (the merge tool's --memprof-merge-contexts, its default): the profile " +
                  "and the action's memory grow with the unique contexts, not with the number " +
                  "of runs, and a context cold in most runs' allocations is hinted cold by " +
                  "clang-19 too (appended, clang-19 marks it notcold). False appends every " +
                  "run's contexts as llvm-profdata does (its bytes). One run gives the same " +
                  "profile either way. See docs/bazel.md.",
        ),
        "train": attr.bool(
            default = False,
            doc = "With no `raw` and an executable `binary` target: run the instrumented " +
                  "binary in an action (PgoMemProfTrain) and index what it writes.",
        ),
        "train_args": attr.string_list(doc = "Arguments of the training run."),
        "train_env": attr.string_dict(doc = "Environment of the training run."),
    }, **ALLOWLIST_ATTRS),
    toolchains = [TOOLCHAIN_TYPE],
)

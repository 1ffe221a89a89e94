"""sample_profile: perf traces + the profiled binary → a sample profile (AutoFDO, CSSPGO), or
existing sample profiles merged."""

load("//rules:llvm_releases.bzl", "SUPPORTED_LLVM_VERSIONS")
load(":helpers.bzl", "profgen_flags", "sample_merge_flags", "zero_pad")
load(":merge_tree.bzl", "merge_tree")
load(":profile_rule.bzl", "TOOLCHAIN_TYPE", "path_of", "pgo_tools", "profiled_binary")
load(":providers.bzl", "PgoProfileInfo")
load(":transitions.bzl", "ALLOWLIST_ATTRS", "sample_ready_transition")

_FORMATS = ["extbinary", "binary", "text"]

# Releases whose llvm-profgen profgen follows.
_PROFGEN_RELEASES = [19, 22]

def _profgen(ctx, pgo, version, trace, binary, out, output_format):
    args = ctx.actions.args()

    # perf.data is read by profgen itself (no perf in the action); any other file is perf
    # script's text.
    args.add("--perfdata" if trace.basename.endswith(".data") else "--perfscript", trace)
    args.add("--binary", binary)
    args.add("-o", out)
    args.add_all(profgen_flags(version, output_format, ctx.attr.ignore_stack_samples))
    if ctx.attr.trace_build_id:
        args.add("--trace-build-id", ctx.attr.trace_build_id)
    args.add_all(ctx.attr.profgen_args)
    ctx.actions.run(
        executable = pgo.profgen_files_to_run,
        arguments = [args],
        inputs = [trace, binary],
        outputs = [out],
        mnemonic = "PgoProfGen",
        progress_message = "Generating sample profile %s from %s (LLVM %d)" % (ctx.label, trace.short_path, version),
        execution_requirements = {"supports-path-mapping": "1"},
    )

def _impl(ctx):
    pgo, version = pgo_tools(ctx)
    fmt = ctx.attr.format
    if fmt not in _FORMATS:
        fail("%s: format must be one of %s, got %r" % (ctx.label, ", ".join(_FORMATS), fmt))
    traces = sorted(ctx.files.perf, key = path_of)
    weighted = [(w, f) for t, w in ctx.attr.weighted_profiles.items() for f in t.files.to_list()]
    profiles = [("", f) for f in ctx.files.profiles] + weighted
    if traces and profiles:
        fail("%s: give either perf (traces, run through profgen) or profiles/weighted_profiles (merged), not both" % ctx.label)
    if not traces and not profiles:
        fail(("%s: no inputs: list perf.data files or perf-script traces of the profiled binary " +
              "in `perf` (perf record -b; perf script -F ip,brstack --show-mmap-events; with `binary`), or sample " +
              "profiles in `profiles` to merge") % ctx.label)
    for w, f in weighted:
        if not w.isdigit() or int(w) < 1:
            fail("%s: weighted_profiles: the weight of %s must be a positive integer, got %r" % (ctx.label, f.short_path, w))
    out = ctx.actions.declare_file(ctx.label.name + ".afdo")
    binary = None
    shard_size = ctx.attr.shard_size
    if traces:
        if not ctx.attr.binary:
            fail("%s: perf traces need `binary`: the very binary that ran under perf" % ctx.label)
        if not pgo.profgen:
            fail(("%s: the registered rules_pgo toolchain has no profgen (a tools archive from " +
                  "before sample_profile): use a newer release or tools = \"source\"") % ctx.label)
        if version not in _PROFGEN_RELEASES:
            fail("%s: profgen follows llvm-profgen %s; llvm_version %d has none: set llvm_version = \"19\" or \"22\"" % (
                ctx.label,
                " and ".join([str(v) for v in _PROFGEN_RELEASES]),
                version,
            ))
        binary, _ = profiled_binary(ctx)
        if len(traces) == 1:
            _profgen(ctx, pgo, version, traces[0], binary, out, fmt)
        else:
            # One profile per trace, merged: as llvm-profgen per trace + llvm-profdata merge.
            profiles = []
            for i, t in enumerate(traces):
                part = ctx.actions.declare_file("%s.traces/%s.afdo" % (ctx.label.name, zero_pad(i, 5)))
                _profgen(ctx, pgo, version, t, binary, part, "extbinary")
                profiles.append(("", part))
    if profiles:
        profiles = sorted(profiles, key = _entry_path)
        merge_tree(
            ctx,
            pgo.merge_files_to_run,
            profiles,
            out,
            shard_size,
            leaf_args = [],
            leaf_inputs = [],
            partial_args = sample_merge_flags(version, "extbinary"),
            final_args = sample_merge_flags(version, fmt),
            mnemonic = "PgoSampleMerge",
            what = "sample profile %s" % ctx.label,
            partial_ext = ".afdo",
        )
    return [
        DefaultInfo(files = depset([out])),
        PgoProfileInfo(
            file = out,
            kind = "sample",
            format_version = fmt,
            llvm_version = version,
            profiled_build_id = ctx.attr.trace_build_id,
            build_id_file = None,
            profiled_binary = binary,
        ),
    ]

def _entry_path(entry):
    return entry[1].path

sample_profile = rule(
    implementation = _impl,
    doc = """A sample profile for clang's -fprofile-sample-use, in one cached action per step.

From traces: `perf` lists what `perf record -b` wrote (`*.data`: perf.data, read by profgen
itself, no perf in the action; -z and pipe-mode files too) or perf-script texts of it (`perf
script -F ip,brstack --show-mmap-events`), in any mix; hybrid traces from `perf record -b -g`
give a context-sensitive CSSPGO profile. They are traces of `binary`, the sample-ready binary that ran (pgo_instrumented_binary(kind =
"sample")). The toolchain's profgen writes `<name>.afdo` (mnemonic PgoProfGen) byte-identical
to llvm-profgen of the toolchain's LLVM release; several traces are each turned into a profile
and merged. A trace of another build fails the action naming both build ids (traces recorded
with `perf record --buildid-mmap`, or `trace_build_id`).

From profiles: `profiles` and `weighted_profiles` are merged (mnemonic PgoSampleMerge) as
`llvm-profdata merge --sample` does, in shards of `shard_size` when set.""",
    attrs = dict({
        "perf": attr.label_list(
            allow_files = True,
            doc = "perf.data files (`*.data`) or perf-script traces (text) of `binary`, in any " +
                  "mix. Order does not matter (sorted by path).",
        ),
        "binary": attr.label(
            allow_files = True,
            cfg = sample_ready_transition,
            doc = "The profiled binary: a file (preferred: the exact binary that ran under " +
                  "perf) or an executable target, then rebuilt sample-ready as " +
                  "pgo_instrumented_binary(kind = \"sample\") builds it.",
        ),
        "profiles": attr.label_list(
            allow_files = True,
            doc = "Sample profiles (text, binary, extbinary) to merge, weight 1.",
        ),
        "weighted_profiles": attr.label_keyed_string_dict(
            allow_files = True,
            doc = "Sample profiles to merge → weight (a positive integer, as a string): " +
                  "llvm-profdata's --weighted-input.",
        ),
        "format": attr.string(
            default = "extbinary",
            doc = "Output encoding: extbinary (default, what clang reads fastest), binary or text.",
        ),
        "llvm_version": attr.string(
            doc = "LLVM release to write for (" + ", ".join([str(v) for v in SUPPORTED_LLVM_VERSIONS]) +
                  "; traces: 19 or 22); default: the toolchain's.",
        ),
        "ignore_stack_samples": attr.bool(
            default = False,
            doc = "Read hybrid traces without their call stacks: an AutoFDO profile instead of a " +
                  "context-sensitive one.",
        ),
        "trace_build_id": attr.string(
            doc = "The build id (hex) of the binary the traces were recorded from, for traces " +
                  "that do not carry it (`perf buildid-list`): profgen fails if `binary`'s differs.",
        ),
        "profgen_args": attr.string_list(doc = "Extra profgen flags (llvm-profgen's spelling)."),
        "shard_size": attr.int(
            default = 0,
            doc = "Merge at most this many profiles per action: shards in parallel, then a " +
                  "final merge (a tree when needed). 0 = one action. Byte-identical either way.",
        ),
    }, **ALLOWLIST_ATTRS),
    toolchains = [TOOLCHAIN_TYPE],
)

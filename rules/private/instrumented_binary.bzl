"""pgo_instrumented_binary: a cc_binary rebuilt for training: MemProf- or IR-PGO-instrumented,
or sample-ready (the binary that runs in production under perf)."""

load(":transitions.bzl", "ALLOWLIST_ATTRS", "instrument_transition")

def _impl(ctx):
    if ctx.attr.kind not in ["memprof", "sample", "instr"]:
        fail("%s: kind must be \"memprof\", \"sample\" or \"instr\", got %r" % (ctx.label, ctx.attr.kind))
    binary = ctx.attr.binary
    if type(binary) == "list":
        binary = binary[0]
    info = binary[DefaultInfo]
    exe = info.files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = exe, is_executable = True)
    return [DefaultInfo(
        executable = out,
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out]).merge(info.default_runfiles),
    )]

pgo_instrumented_binary = rule(
    implementation = _impl,
    executable = True,
    doc = """`binary` and its cc_library deps rebuilt in -c opt for training, not stripped.

kind = "memprof" (default): with -fmemory-profile, -gmlt -fdebug-info-for-profiling and frame
pointers (memprof-formats.md §1.1), linked with the MemProf runtime. Run it with
MEMPROF_OPTIONS=log_path=<dir>/<name> to write raw profiles; keep a copy of the binary next to
them for memprof_profile(binary = ...).

kind = "sample": the sample-ready build (-gmlt -fdebug-info-for-profiling
-funique-internal-linkage-names, a GNU build id), not instrumented: it runs at full speed in
production under `perf record -b`; keep the very binary for sample_profile(binary = ...).
pgo_cc_binary(sample_profile = ...) compiles with the same flags beside -fprofile-sample-use.

kind = "instr": IR PGO instrumentation (-fprofile-generate at compile and link time). Run it
with LLVM_PROFILE_FILE=<dir>/<name>-%p.profraw and give the .profraw files to instr_profile.""",
    attrs = dict({
        "binary": attr.label(mandatory = True, executable = True, cfg = instrument_transition),
        "kind": attr.string(
            default = "memprof",
            doc = "\"memprof\" (instrumented for MemProf), \"sample\" (sample-ready) or " +
                  "\"instr\" (IR PGO instrumentation).",
        ),
    }, **ALLOWLIST_ATTRS),
)

"""pgo_instrumented_binary: a cc_binary rebuilt with MemProf instrumentation (for training)."""

load(":transitions.bzl", "ALLOWLIST_ATTRS", "instrument_transition")

def _impl(ctx):
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
    doc = """`binary` and its cc_library deps rebuilt in -c opt with -fmemory-profile,
-gmlt -fdebug-info-for-profiling and frame pointers (memprof-formats.md §1.1), linked with the
MemProf runtime and not stripped. Run it with MEMPROF_OPTIONS=log_path=<dir>/<name> to write
raw profiles; keep a copy of the binary next to them for memprof_profile(binary = ...).""",
    attrs = dict({
        "binary": attr.label(mandatory = True, executable = True, cfg = instrument_transition),
    }, **ALLOWLIST_ATTRS),
)

"""pgo_instrumented_binary: a cc_binary rebuilt for training: MemProf- or IR-PGO-instrumented
(or both), CS-IR-PGO-instrumented, or sample-ready (the binary that runs in production under
perf)."""

load(":helpers.bzl", "TRAINING_KINDS")
load(":transitions.bzl", "ALLOWLIST_ATTRS", "absolute_label_string", "instrument_transition")

def _impl(ctx):
    if ctx.attr.kind not in TRAINING_KINDS:
        fail("%s: kind must be one of %s, got %r" % (
            ctx.label,
            ", ".join(["\"%s\"" % k for k in TRAINING_KINDS]),
            ctx.attr.kind,
        ))
    if (ctx.attr.kind == "cs_instr") != bool(ctx.attr.instr_profile):
        fail(("%s: instr_profile goes with kind = \"cs_instr\" (and only with it): the " +
              "instrumented profile of a first -fprofile-generate training that the CS-IR-PGO " +
              "build compiles with (-fprofile-use beside -fcs-profile-generate)") % ctx.label)
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

_pgo_instrumented_binary = rule(
    implementation = _impl,
    executable = True,
    attrs = dict({
        "binary": attr.label(mandatory = True, executable = True, cfg = instrument_transition),
        "kind": attr.string(default = "memprof"),
        "instr_profile": attr.string(doc = "Absolute label (the macro makes it so)."),
    }, **ALLOWLIST_ATTRS),
)

def pgo_instrumented_binary(name, binary, kind = "memprof", instr_profile = None, **kwargs):
    """`binary` and its cc_library deps rebuilt in -c opt for training, not stripped.

    kind = "memprof" (default): -fmemory-profile, -gmlt -fdebug-info-for-profiling and frame
    pointers (memprof-formats.md §1.1), linked with the MemProf runtime. Run it with
    MEMPROF_OPTIONS=log_path=<dir>/<name> to write raw profiles; keep a copy of the binary next
    to them for memprof_profile(binary = ...).

    kind = "sample": the sample-ready build (-gmlt -fdebug-info-for-profiling
    -funique-internal-linkage-names, a GNU build id), not instrumented: it runs at full speed in
    production under `perf record -b`; keep the very binary for sample_profile(binary = ...).
    pgo_cc_binary(sample_profile = ...) compiles with the same flags beside -fprofile-sample-use.

    kind = "instr": IR PGO instrumentation (-fprofile-generate at compile and link time, a GNU
    build id). Run it with LLVM_PROFILE_FILE=<dir>/<name>-%p.profraw and give the .profraw
    files to instr_profile(raw = ...).

    kind = "instr_memprof": both at once (the flags of "instr" and "memprof"; clang 19 and 22).
    One run with LLVM_PROFILE_FILE and MEMPROF_OPTIONS=log_path=... writes both raw profiles;
    instr_profile(raw = .profraw, memprof_raw = raw MemProf profiles, binary = this binary)
    merges them into one indexed file, which pgo_cc_binary(instr_profile = ...) gives to
    clang as -fprofile-use= and -fmemory-profile-use=.

    kind = "cs_instr": context-sensitive IR PGO: -fcs-profile-generate on top of the
    -fprofile-use build of `instr_profile` (the profile of a first "instr" training). Merge
    its .profraw files with that profile: instr_profile(raw = [first profile] + .profraw).

    Args:
      name: the instrumented executable (bazel run-able).
      binary: the cc_binary target.
      kind: "memprof", "sample", "instr", "instr_memprof" or "cs_instr".
      instr_profile: kind = "cs_instr" only: the instr_profile target of the first training.
      **kwargs: common attributes (tags, visibility, testonly, ...).
    """
    _pgo_instrumented_binary(
        name = name,
        binary = binary,
        kind = kind,
        instr_profile = absolute_label_string(instr_profile) if instr_profile else "",
        **kwargs
    )

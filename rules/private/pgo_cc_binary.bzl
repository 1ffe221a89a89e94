"""pgo_cc_binary: a cc_binary rebuilt, with every cc_library it depends on, using profiles."""

load(":helpers.bzl", "check_llvm_versions", "check_memprof_sources", "check_profile_mix", "instr_memprof_use_flags")
load(":providers.bzl", "PgoCcToolchainCheckInfo")
load(":transitions.bzl", "ALLOWLIST_ATTRS", "absolute_label_string", "optimize_transition")

def _one(x):
    return x[0] if type(x) == "list" else x

_NOT_CONSUMED = ("%s: the C++ toolchain used for %s (%s, cpu %s) does not consume the %s " +
                 "profile: use rules_pgo's cc toolchain (--crosstool_top=@<name>//:toolchain from " +
                 "rules_pgo_register_cc_toolchain) or add @rules_pgo//rules:%s to your " +
                 "cc_toolchain's compiler_files/all_files and pgo_cc_features(ctx, ...) to its " +
                 "config rule (docs/bazel.md). Note: --incompatible_enable_cc_toolchain_resolution " +
                 "is not supported on Bazel 4.2.3.")

def _kind(label, info):
    # None: unset; "": a plain file (a checked-in profile); else the rule's kind.
    if not label:
        return None
    return info.kind if info else ""

def _impl(ctx):
    binary = _one(ctx.attr.binary)
    check = _one(ctx.attr._check)[PgoCcToolchainCheckInfo]
    err = check_profile_mix(
        str(ctx.label),
        _kind(ctx.attr.memprof_profile, check.memprof_info),
        _kind(ctx.attr.sample_profile, check.sample_info),
        _kind(ctx.attr.instr_profile, check.instr_info),
    )
    if err:
        fail(err)
    for label, consumed, what, flag, info in [
        (ctx.attr.memprof_profile, check.consumes_memprof, "MemProf", "memprof_profile", check.memprof_info),
        (ctx.attr.sample_profile, check.consumes_sample, "sample", "sample_profile", check.sample_info),
        (ctx.attr.instr_profile, check.consumes_instr, "instrumented", "instr_profile", check.instr_info),
    ]:
        if not label:
            continue
        if not consumed:
            fail(_NOT_CONSUMED % (ctx.label, binary.label, check.compiler, check.cpu, what, flag))
        if info:
            err = check_llvm_versions(str(ctx.label), label, info.llvm_version, check.llvm_version, check.compiler)
            if err:
                fail(err)
    instr_has_memprof = bool(ctx.attr.instr_profile and check.instr_info and getattr(check.instr_info, "has_memprof", False))
    err = check_memprof_sources(str(ctx.label), bool(ctx.attr.memprof_profile), bool(ctx.attr.instr_profile), instr_has_memprof, check.llvm_version)
    if err:
        fail(err)
    if instr_has_memprof and instr_memprof_use_flags(check.llvm_version, "") and not check.consumes_memprof:
        fail(_NOT_CONSUMED % (ctx.label, binary.label, check.compiler, check.cpu, "MemProf part of the instrumented", "instr_profile"))

    info = binary[DefaultInfo]
    exe = info.files_to_run.executable
    if not exe:
        fail("%s: binary %s is not executable" % (ctx.label, binary.label))
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = exe, is_executable = True)
    runfiles = ctx.runfiles(files = [out]).merge(info.default_runfiles)
    providers = [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]
    if OutputGroupInfo in binary:
        providers.append(binary[OutputGroupInfo])
    return providers

_pgo_cc_binary = rule(
    implementation = _impl,
    executable = True,
    attrs = dict({
        "binary": attr.label(mandatory = True, executable = True, cfg = optimize_transition),
        "memprof_profile": attr.string(doc = "Absolute label of the MemProf profile (the macro makes it so)."),
        "sample_profile": attr.string(doc = "Absolute label of the sample profile (the macro makes it so)."),
        "instr_profile": attr.string(doc = "Absolute label of the instrumented profile (the macro makes it so)."),
        "copts": attr.string_list(doc = "Extra --copt for the optimized configuration."),
        "_check": attr.label(default = Label("//rules:toolchain_check"), cfg = optimize_transition),
    }, **ALLOWLIST_ATTRS),
)

def pgo_cc_binary(name, binary, memprof_profile = None, sample_profile = None, instr_profile = None, copts = [], **kwargs):
    """`binary` (a cc_binary) and all its cc_library deps recompiled in -c opt with the profiles.

    Args:
      name: the optimized executable (bazel run-able; forwards runfiles).
      binary: the cc_binary target.
      memprof_profile: a memprof_profile target (or an indexed .profdata file). Every compile
        action of the binary and its deps gets it as an input and -fmemory-profile-use=<path>,
        through a C++ toolchain wired for rules_pgo (docs/bazel.md).
      sample_profile: a sample_profile target (or a checked-in .afdo/.prof file). Every compile
        action gets it as an input and -fprofile-sample-use=<path>, with -gmlt
        -fdebug-info-for-profiling -funique-internal-linkage-names as the sample-ready
        training build had (pgo_instrumented_binary(kind = "sample")). Combines with
        memprof_profile.
      instr_profile: an instr_profile target (or a checked-in indexed .profdata): every compile
        action gets it as an input and -fprofile-use=<path>, and -fmemory-profile-use=<path>
        too when it holds MemProf records (instr_profile(memprof_raw = ...); clang 18+).
        Combines with memprof_profile (clang 18+) unless it holds MemProf records itself; not
        with sample_profile.
      copts: extra compile flags of the optimized configuration, e.g.
        ["-mllvm", "-optimize-hot-cold-new"].
      **kwargs: common attributes (tags, visibility, testonly, ...).
    """
    _pgo_cc_binary(
        name = name,
        binary = binary,
        memprof_profile = absolute_label_string(memprof_profile) if memprof_profile else "",
        sample_profile = absolute_label_string(sample_profile) if sample_profile else "",
        instr_profile = absolute_label_string(instr_profile) if instr_profile else "",
        copts = copts,
        **kwargs
    )

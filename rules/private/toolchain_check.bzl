"""pgo_cc_toolchain_check: reports, in the configuration it is built in, whether the C++
toolchain consumes the profiles of //rules:memprof_profile, :sample_profile and :instr_profile and which
LLVM release it is.

It finds the toolchain the way cc rules do (find_cpp_toolchain + the cpp toolchain type), so it
sees the same toolchain as the cc_binary being optimized (spec §12.5 pitfall 7)."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load(":helpers.bzl", "INSTR_USE_FEATURE", "LLVM_MARKER_FEATURE_PREFIX", "MEMPROF_USE_FEATURE", "SAMPLE_USE_FEATURE", "llvm_version_from_compiler")
load(":providers.bzl", "PgoCcToolchainCheckInfo", "PgoProfileInfo")

def _impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    fc = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    version = 0
    for v in range(10, 40):
        if cc_common.is_enabled(feature_configuration = fc, feature_name = LLVM_MARKER_FEATURE_PREFIX + str(v)):
            version = v
            break
    if not version:
        version = llvm_version_from_compiler(cc_toolchain.compiler_executable)
    return [PgoCcToolchainCheckInfo(
        consumes_memprof = cc_common.is_enabled(feature_configuration = fc, feature_name = MEMPROF_USE_FEATURE),
        consumes_sample = cc_common.is_enabled(feature_configuration = fc, feature_name = SAMPLE_USE_FEATURE),
        consumes_instr = cc_common.is_enabled(feature_configuration = fc, feature_name = INSTR_USE_FEATURE),
        memprof_info = _info(ctx.attr._memprof_profile),
        sample_info = _info(ctx.attr._sample_profile),
        instr_info = _info(ctx.attr._instr_profile),
        llvm_version = version,
        compiler = cc_toolchain.compiler_executable,
        cpu = cc_toolchain.cpu,
    )]

def _info(target):
    if target and PgoProfileInfo in target:
        return target[PgoProfileInfo]
    return None

pgo_cc_toolchain_check = rule(
    implementation = _impl,
    attrs = {
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
        # Same configuration as the cc_toolchain's compiler files, so the profile target is
        # the one the compile actions read (no second analysis).
        "_memprof_profile": attr.label(
            default = Label("//rules:memprof_profile"),
            cfg = "exec",
            allow_files = True,
        ),
        "_sample_profile": attr.label(
            default = Label("//rules:sample_profile"),
            cfg = "exec",
            allow_files = True,
        ),
        "_instr_profile": attr.label(
            default = Label("//rules:instr_profile"),
            cfg = "exec",
            allow_files = True,
        ),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
    doc = "Internal to pgo_cc_binary.",
)

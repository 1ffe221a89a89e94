"""What a C++ toolchain config adds to consume rules_pgo profiles (4.2.3 and later).

    load("@rules_pgo//rules:defs.bzl", "PGO_CC_TOOLCHAIN_CONFIG_ATTRS", "pgo_cc_features")
    features = [...] + pgo_cc_features(ctx, llvm_version = 19)
    my_config = rule(_impl, attrs = dict(my_attrs, **PGO_CC_TOOLCHAIN_CONFIG_ATTRS), ...)

and "@rules_pgo//rules:memprof_profile", "@rules_pgo//rules:sample_profile" and
"@rules_pgo//rules:instr_profile" in the cc_toolchain's compiler_files and all_files.
On Bazel 4.2.3 (and 7/8 with exec_transition_for_inputs = True, the default) the toolchain's
file attributes are in the exec configuration, so the attribute below is too: the compile
action must see the very file that the compiler files carry (spec §12.1)."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
)
load(
    ":helpers.bzl",
    "INSTR_USE_FEATURE",
    "LLVM_MARKER_FEATURE_PREFIX",
    "MEMPROF_USE_FEATURE",
    "SAMPLE_USE_FEATURE",
    "instr_memprof_use_flags",
    "instr_use_flags",
    "memprof_use_flags",
    "sample_use_flags",
)
load(":providers.bzl", "PgoProfileInfo")

def _cc_toolchain_config_attrs(cfg):
    return {
        "_pgo_memprof_profile": attr.label(
            default = Label("//rules:memprof_profile"),
            cfg = cfg,
            allow_files = True,
            doc = "The label_flag set by pgo_cc_binary's transition (MemProf).",
        ),
        "_pgo_sample_profile": attr.label(
            default = Label("//rules:sample_profile"),
            cfg = cfg,
            allow_files = True,
            doc = "The label_flag set by pgo_cc_binary's transition (sample profile).",
        ),
        "_pgo_instr_profile": attr.label(
            default = Label("//rules:instr_profile"),
            cfg = cfg,
            allow_files = True,
            doc = "The label_flag set by pgo_cc_binary's transition (instrumented profile).",
        ),
    }

# For toolchains whose compiler files are exec-configured (Bazel 4.2.3 … 8 default).
PGO_CC_TOOLCHAIN_CONFIG_ATTRS = _cc_toolchain_config_attrs("exec")

# For Starlark cc_toolchain (rules_cc on Bazel 9+) or exec_transition_for_inputs = False.
PGO_CC_TOOLCHAIN_CONFIG_ATTRS_TARGET_CFG = _cc_toolchain_config_attrs("target")

_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.lto_backend,
]

def pgo_cc_features(ctx, llvm_version):
    """Features for a cc_toolchain_config rule that has PGO_CC_TOOLCHAIN_CONFIG_ATTRS.

    Args:
      ctx: the config rule's context.
      llvm_version: int, the LLVM major release of the toolchain's clang. It becomes the
        marker feature pgo_llvm_<N>, which pgo_cc_binary compares with the profile's release.
    Returns:
      A list of enabled features; pgo_memprof_use, pgo_sample_use and pgo_instr_use only when
      their profile is set, so plain builds are unchanged (clang rejects an empty profile file)."""
    features = [feature(name = LLVM_MARKER_FEATURE_PREFIX + str(llvm_version), enabled = True)]
    memprof = _one_file(ctx, ctx.files._pgo_memprof_profile, "memprof_profile")
    if memprof:
        features.append(_use_feature(MEMPROF_USE_FEATURE, memprof_use_flags(llvm_version, memprof.path)))
    sample = _one_file(ctx, ctx.files._pgo_sample_profile, "sample_profile")
    if sample:
        features.append(_use_feature(SAMPLE_USE_FEATURE, sample_use_flags(sample.path)))
    instr = _one_file(ctx, ctx.files._pgo_instr_profile, "instr_profile")
    if instr:
        features.append(_use_feature(INSTR_USE_FEATURE, instr_use_flags(instr.path)))

        # One file with both (instr_profile's memprof_raw): clang 18+ reads the MemProf part
        # only through -fmemory-profile-use. pgo_cc_binary refuses a memprof_profile beside it.
        if not memprof and _has_memprof(ctx.attr._pgo_instr_profile):
            flags = instr_memprof_use_flags(llvm_version, instr.path)
            if flags:
                features.append(_use_feature(MEMPROF_USE_FEATURE, flags))
    return features

def _has_memprof(target):
    if type(target) == "list":
        target = target[0] if target else None
    if not target or PgoProfileInfo not in target:
        return False
    return getattr(target[PgoProfileInfo], "has_memprof", False)

def _one_file(ctx, files, flag):
    if len(files) > 1:
        fail("%s: @rules_pgo//rules:%s must name one profile file, got %d: %s" % (
            ctx.label,
            flag,
            len(files),
            ", ".join([f.short_path for f in files]),
        ))
    return files[0] if files else None

def _use_feature(name, flags):
    return feature(
        name = name,
        enabled = True,
        flag_sets = [flag_set(actions = _COMPILE_ACTIONS, flag_groups = [flag_group(flags = flags)])],
    )

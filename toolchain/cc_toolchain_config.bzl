"""pgo_clang_toolchain_config: a small clang C/C++ toolchain config that consumes rules_pgo
profiles (the spec §12 mechanism). Generated into a repository by
rules_pgo_register_cc_toolchain(); also a worked example for users who write their own."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("//rules:defs.bzl", "PGO_CC_TOOLCHAIN_CONFIG_ATTRS", "pgo_cc_features")

_COMPILE = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.lto_backend,
    ACTION_NAMES.clif_match,
]

_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags, features = None):
    return flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = [with_feature_set(features = features)] if features else [],
    )

def _impl(ctx):
    paths = ctx.attr.tool_paths
    features = [
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(name = "fastbuild"),
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_start_end_lib", enabled = False),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                _flags(_COMPILE, [
                    "-U_FORTIFY_SOURCE",
                    "-fstack-protector",
                    "-Wall",
                    "-fno-omit-frame-pointer",
                    "-no-canonical-prefixes",
                    # Reproducible objects across checkouts and machines (remote cache).
                    "-ffile-compilation-dir=.",
                    "-Wno-builtin-macro-redefined",
                    "-D__DATE__=\"redacted\"",
                    "-D__TIMESTAMP__=\"redacted\"",
                    "-D__TIME__=\"redacted\"",
                ]),
                _flags(_COMPILE, ["-g"], ["dbg"]),
                _flags(_COMPILE, ["-O2", "-D_FORTIFY_SOURCE=1", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"], ["opt"]),
                _flags([ACTION_NAMES.cpp_compile, ACTION_NAMES.cpp_header_parsing], ["-std=c++17"]),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                # Link like clang++: the C driver would not pull in libstdc++ nor the MemProf
                # operator-new interceptors (spec §12.5 pitfall 4).
                _flags(_LINK, ["--driver-mode=g++", "-no-canonical-prefixes", "-Wl,--build-id=sha1", "-lm"]),
                _flags(_LINK, ["-Wl,--gc-sections"], ["opt"]),
            ],
        ),
    ] + pgo_cc_features(ctx, ctx.attr.llvm_version)

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = ctx.attr.builtin_include_directories,
        toolchain_identifier = ctx.attr.toolchain_identifier,
        host_system_name = "local",
        target_system_name = ctx.attr.target_system_name,
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc",
        compiler = "clang",
        abi_version = "local",
        abi_libc_version = "local",
        tool_paths = [tool_path(name = k, path = v) for k, v in sorted(paths.items())],
    )

pgo_clang_toolchain_config = rule(
    implementation = _impl,
    attrs = dict({
        "cpu": attr.string(mandatory = True),
        "target_system_name": attr.string(default = "x86_64-unknown-linux-gnu"),
        "toolchain_identifier": attr.string(mandatory = True),
        "llvm_version": attr.int(mandatory = True, doc = "clang's major release."),
        "tool_paths": attr.string_dict(mandatory = True, doc = "gcc, ld, ar, cpp, nm, ... → absolute paths."),
        "builtin_include_directories": attr.string_list(),
    }, **PGO_CC_TOOLCHAIN_CONFIG_ATTRS),
    provides = [CcToolchainConfigInfo],
)

"""Analysis tests of the rules (skylib analysistest on Bazel 4.2.3)."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules:defs.bzl", "PgoProfileInfo", "memprof_profile", "pgo_cc_binary")

def _profile_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    info = target[PgoProfileInfo]
    asserts.equals(env, "memprof", info.kind)
    asserts.equals(env, 22, info.llvm_version)
    asserts.equals(env, "indexed-v13/memprof-v3", info.format_version)
    asserts.equals(env, "profile.profdata", info.file.basename)
    asserts.equals(env, "app.bin", info.profiled_binary.basename)
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "PgoMemProfIndex"]
    asserts.equals(env, 1, len(actions))
    a = actions[0]
    inputs = [f.basename for f in a.inputs.to_list()]
    for want in ["app.bin", "raw.1", "raw.2", "merge"]:
        asserts.true(env, want in inputs, "%s not in inputs %s" % (want, inputs))
    argv = a.argv
    if argv:  # None for some action types on 4.2.3
        asserts.true(env, "--llvm-version" in argv, str(argv))
        asserts.equals(env, "22", argv[argv.index("--llvm-version") + 1])
        asserts.true(env, "--profiled-binary" in argv, str(argv))

        # 4.2.3 shows the param file's contents inline; executed, they are --input-files=<file>.
        raws = [x for x in argv if x.startswith("rules/tests/raw.")]
        asserts.equals(env, ["rules/tests/raw.1", "rules/tests/raw.2"], raws)
    return analysistest.end(env)

profile_test = analysistest.make(_profile_test_impl)

def _failure_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

failure_test = analysistest.make(
    _failure_test_impl,
    expect_failure = True,
    attrs = {"message": attr.string()},
)

# The auto-configured toolchain does not consume profiles: analysis error, not a silent no-op.
foreign_toolchain_test = analysistest.make(
    _failure_test_impl,
    expect_failure = True,
    attrs = {"message": attr.string()},
    config_settings = {
        "//command_line_option:crosstool_top": "@local_config_cc//:toolchain",
        "//command_line_option:host_crosstool_top": "@local_config_cc//:toolchain",
    },
)

def rules_test_suite(name):
    """Declares the targets under test and the tests, and a test_suite `name` of them.

    Args:
      name: the test_suite.
    """
    memprof_profile(name = "profile", raw = ["raw.2", "raw.1"], binary = "app.bin", tags = ["manual"])
    profile_test(name = "profile_test", target_under_test = ":profile")

    memprof_profile(name = "noraw", raw = [], binary = "app.bin", tags = ["manual"])
    failure_test(name = "noraw_test", target_under_test = ":noraw", message = "no raw MemProf profiles")

    memprof_profile(name = "badversion", raw = ["raw.1"], binary = "app.bin", llvm_version = "17", tags = ["manual"])
    failure_test(name = "badversion_test", target_under_test = ":badversion", message = "llvm_version 17 is not supported")

    memprof_profile(name = "badmode", raw = ["raw.1"], binary = "app.bin", failure_mode = "some", tags = ["manual"])
    failure_test(name = "badmode_test", target_under_test = ":badmode", message = "failure_mode must be")
    native.cc_binary(name = "app", srcs = ["app.cc"], tags = ["manual"])
    pgo_cc_binary(name = "opt_none", binary = ":app", tags = ["manual"])
    failure_test(name = "opt_none_test", target_under_test = ":opt_none", message = "no profile")

    memprof_profile(name = "prof16", raw = ["raw.1"], binary = "app.bin", llvm_version = "16", tags = ["manual"])
    pgo_cc_binary(name = "opt16", binary = ":app", memprof_profile = ":prof16", tags = ["manual"])
    failure_test(name = "opt16_test", target_under_test = ":opt16", message = "is written for LLVM 16 but")

    pgo_cc_binary(name = "opt_foreign", binary = ":app", memprof_profile = ":profile", tags = ["manual"])
    foreign_toolchain_test(name = "foreign_toolchain_test", target_under_test = ":opt_foreign", message = "does not consume the MemProf profile")

    native.test_suite(name = name, tests = [
        ":profile_test",
        ":noraw_test",
        ":badversion_test",
        ":badmode_test",
        ":opt_none_test",
        ":opt16_test",
        ":foreign_toolchain_test",
    ])

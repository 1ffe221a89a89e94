"""Analysis tests of the rules (skylib analysistest on Bazel 4.2.3)."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules:defs.bzl", "PgoProfileInfo", "instr_profile", "memprof_profile", "pgo_cc_binary", "pgo_instrumented_binary", "sample_profile")

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

def _sample_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    info = target[PgoProfileInfo]
    asserts.equals(env, ctx.attr.kind, info.kind)
    asserts.equals(env, 22, info.llvm_version)
    asserts.equals(env, ctx.attr.format_version, info.format_version)
    asserts.equals(env, ctx.attr.out, info.file.basename)
    actions = analysistest.target_actions(env)
    counts = {}
    for a in actions:
        counts[a.mnemonic] = counts.get(a.mnemonic, 0) + 1
    for mnemonic, want in ctx.attr.counts.items():
        asserts.equals(env, want, str(counts.get(mnemonic, 0)), "%s actions: %s" % (mnemonic, counts))
    for a in actions:
        if a.mnemonic == "PgoProfGen" and a.argv:
            for want in ["--perfscript", "--binary", "--gen-cs-nested-profile=false", "--csprof-merge-cold-context=false"]:
                asserts.true(env, want in a.argv, "%s not in %s" % (want, a.argv))
    return analysistest.end(env)

sample_test = analysistest.make(
    _sample_test_impl,
    attrs = {
        "out": attr.string(),
        "counts": attr.string_dict(),
        "kind": attr.string(default = "sample"),
        "format_version": attr.string(default = "extbinary"),
    },
)

def _instr_memprof_test_impl(ctx):
    env = analysistest.begin(ctx)
    info = analysistest.target_under_test(env)[PgoProfileInfo]
    asserts.equals(env, "instr", info.kind)
    asserts.true(env, info.has_memprof)
    asserts.equals(env, "indexed-v13/memprof-v3", info.format_version)
    asserts.equals(env, "app.bin", info.profiled_binary.basename)
    asserts.equals(env, "pgo_memprof.buildid", info.build_id_file.basename)
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "PgoInstrMerge"]
    asserts.equals(env, 1, len(actions))
    inputs = [f.basename for f in actions[0].inputs.to_list()]
    for want in ["app.bin", "raw.1", "raw.2", "merge"]:
        asserts.true(env, want in inputs, "%s not in inputs %s" % (want, inputs))
    argv = actions[0].argv
    if argv:
        for want in ["--profiled-binary", "--build-id-output", "--memprof-merge-contexts=false"]:
            asserts.true(env, want in argv, "%s not in %s" % (want, argv))
    return analysistest.end(env)

instr_memprof_test = analysistest.make(_instr_memprof_test_impl)

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

    sample_profile(name = "afdo", perf = ["raw.1"], binary = "app.bin", tags = ["manual"])
    sample_test(name = "afdo_test", target_under_test = ":afdo", out = "afdo.afdo", counts = {"PgoProfGen": "1", "PgoSampleMerge": "0"})

    # Two traces: a profile each, merged.
    sample_profile(name = "afdo2", perf = ["raw.2", "raw.1"], binary = "app.bin", tags = ["manual"])
    sample_test(name = "afdo2_test", target_under_test = ":afdo2", out = "afdo2.afdo", counts = {"PgoProfGen": "2", "PgoSampleMerge": "1"})

    # Five profiles in shards of 2: 3 shards (2, 2, 1), then 2 merges (2, 1), then the final.
    sample_profile(
        name = "merged",
        profiles = ["raw.1", "raw.2", "app.cc", "app.bin"],
        weighted_profiles = {"rules_test.bzl": "2"},
        shard_size = 2,
        tags = ["manual"],
    )
    sample_test(name = "merged_test", target_under_test = ":merged", out = "merged.afdo", counts = {"PgoSampleMerge": "6"})

    sample_profile(name = "afdo_noinput", tags = ["manual"])
    failure_test(name = "afdo_noinput_test", target_under_test = ":afdo_noinput", message = "no inputs")

    sample_profile(name = "afdo_weight", profiles = ["raw.1"], weighted_profiles = {"raw.2": "x"}, tags = ["manual"])
    failure_test(name = "afdo_weight_test", target_under_test = ":afdo_weight", message = "must be a positive integer")

    sample_profile(name = "afdo_nobinary", perf = ["raw.1"], tags = ["manual"])
    failure_test(name = "afdo_nobinary_test", target_under_test = ":afdo_nobinary", message = "perf traces need `binary`")

    pgo_cc_binary(name = "opt_sample_as_memprof", binary = ":app", memprof_profile = ":afdo", tags = ["manual"])
    failure_test(name = "opt_sample_as_memprof_test", target_under_test = ":opt_sample_as_memprof", message = "memprof_profile is given a sample profile")

    pgo_cc_binary(name = "opt_sample_foreign", binary = ":app", sample_profile = ":afdo", tags = ["manual"])
    foreign_toolchain_test(name = "sample_foreign_toolchain_test", target_under_test = ":opt_sample_foreign", message = "does not consume the sample profile")

    memprof_profile(name = "sharded_warn", raw = ["raw.1", "raw.2", "app.cc"], binary = "app.bin", shard_size = 2, failure_mode = "warn", tags = ["manual"])
    failure_test(name = "sharded_warn_test", target_under_test = ":sharded_warn", message = "shard_size needs failure_mode")

    # Instrumented: 5 .profraw in shards of 3: 2 shards + the final merge.
    instr_profile(name = "pgo", raw = ["raw.1", "raw.2", "app.cc", "app.bin", "rules_test.bzl"], shard_size = 3, tags = ["manual"])
    sample_test(name = "pgo_test", target_under_test = ":pgo", out = "pgo.profdata", kind = "instr", format_version = "indexed-v13", counts = {"PgoInstrMerge": "3"})

    instr_profile(name = "pgo_noraw", tags = ["manual"])
    failure_test(name = "pgo_noraw_test", target_under_test = ":pgo_noraw", message = "no raw profiles")

    pgo_cc_binary(name = "opt_instr_sample", binary = ":app", instr_profile = ":pgo", sample_profile = ":afdo", tags = ["manual"])
    failure_test(name = "opt_instr_sample_test", target_under_test = ":opt_instr_sample", message = "a sample profile with an instrumented one")

    pgo_cc_binary(name = "opt_instr_foreign", binary = ":app", instr_profile = ":pgo", tags = ["manual"])
    foreign_toolchain_test(name = "instr_foreign_toolchain_test", target_under_test = ":opt_instr_foreign", message = "does not consume the instrumented profile")

    # .profraw + raw MemProf profiles of one binary → one indexed file with both.
    instr_profile(name = "pgo_memprof", raw = ["raw.1"], memprof_raw = ["raw.2"], binary = "app.bin", merge_contexts = False, tags = ["manual"])
    instr_memprof_test(name = "pgo_memprof_test", target_under_test = ":pgo_memprof")

    instr_profile(name = "pgo_memprof_nobinary", raw = ["raw.1"], memprof_raw = ["raw.2"], tags = ["manual"])
    failure_test(name = "pgo_memprof_nobinary_test", target_under_test = ":pgo_memprof_nobinary", message = "memprof_raw needs `binary`")

    instr_profile(name = "pgo_append_sharded", raw = ["raw.1", "raw.2", "app.cc"], merge_contexts = False, shard_size = 2, tags = ["manual"])
    failure_test(name = "pgo_append_sharded_test", target_under_test = ":pgo_append_sharded", message = "shard_size needs merge_contexts = True")

    pgo_cc_binary(name = "opt_two_memprof", binary = ":app", instr_profile = ":pgo_memprof", memprof_profile = ":profile", tags = ["manual"])
    failure_test(name = "opt_two_memprof_test", target_under_test = ":opt_two_memprof", message = "two MemProf profiles")

    pgo_cc_binary(name = "opt_instr_memprof_foreign", binary = ":app", instr_profile = ":pgo_memprof", tags = ["manual"])
    foreign_toolchain_test(name = "instr_memprof_foreign_toolchain_test", target_under_test = ":opt_instr_memprof_foreign", message = "does not consume the instrumented profile")

    pgo_instrumented_binary(name = "train_badkind", binary = ":app", kind = "gcov", tags = ["manual"])
    failure_test(name = "train_badkind_test", target_under_test = ":train_badkind", message = "kind must be one of")

    pgo_instrumented_binary(name = "train_cs_noprofile", binary = ":app", kind = "cs_instr", tags = ["manual"])
    failure_test(name = "train_cs_noprofile_test", target_under_test = ":train_cs_noprofile", message = "instr_profile goes with kind = \"cs_instr\"")

    native.test_suite(name = name, tests = [
        ":pgo_memprof_test",
        ":pgo_memprof_nobinary_test",
        ":pgo_append_sharded_test",
        ":opt_two_memprof_test",
        ":instr_memprof_foreign_toolchain_test",
        ":train_badkind_test",
        ":train_cs_noprofile_test",
        ":pgo_test",
        ":pgo_noraw_test",
        ":opt_instr_sample_test",
        ":instr_foreign_toolchain_test",
        ":afdo_test",
        ":afdo2_test",
        ":merged_test",
        ":afdo_noinput_test",
        ":afdo_weight_test",
        ":afdo_nobinary_test",
        ":opt_sample_as_memprof_test",
        ":sample_foreign_toolchain_test",
        ":sharded_warn_test",
        ":profile_test",
        ":noraw_test",
        ":badversion_test",
        ":badmode_test",
        ":opt_none_test",
        ":opt16_test",
        ":foreign_toolchain_test",
    ])

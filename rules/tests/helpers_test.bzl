"""Unit tests of the pure helpers (skylib unittest; Debian's skylib 1.0.3 is enough)."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load(
    "//rules/private:helpers.bzl",
    "absolutize_label",
    "check_llvm_versions",
    "instrument_settings",
    "llvm_version_from_compiler",
    "memprof_format_version",
    "memprof_use_flags",
    "merge_flags",
    "parse_llvm_version",
    "sample_use_flags",
    "shard_plan",
    "zero_pad",
)

def _absolutize_test(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, "@//app:x", absolutize_label(":x", "@", "app"))
    asserts.equals(env, "@//app:x", absolutize_label("x", "@", "app"))
    asserts.equals(env, "@//a/b:c", absolutize_label("//a/b:c", "@", "app"))
    asserts.equals(env, "@//a/b:b", absolutize_label("//a/b", "@", "app"))
    asserts.equals(env, "@r//p:n", absolutize_label("@r//p:n", "@", "app"))
    asserts.equals(env, "@r//:r", absolutize_label("@r", "@", "app"))
    asserts.equals(env, "@ext//pkg:x", absolutize_label(":x", "@ext", "pkg"))
    return unittest.end(env)

absolutize_test = unittest.make(_absolutize_test)

def _versions_test(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, (19, ""), parse_llvm_version("19", "t"))
    asserts.equals(env, (22, ""), parse_llvm_version(22, "t"))
    asserts.equals(env, (0, ""), parse_llvm_version("", "t"))
    v, err = parse_llvm_version("17", "t")
    asserts.equals(env, 0, v)
    asserts.true(env, "not supported" in err, err)
    v, err = parse_llvm_version("x19", "t")
    asserts.true(env, "must be one of 16, 19, 22" in err, err)
    asserts.equals(env, 19, llvm_version_from_compiler("/usr/bin/clang-19"))
    asserts.equals(env, 22, llvm_version_from_compiler("clang++-22"))
    asserts.equals(env, 0, llvm_version_from_compiler("/usr/bin/gcc"))
    asserts.equals(env, "indexed-v12/memprof-v0", memprof_format_version(19))
    asserts.equals(env, "indexed-v12/memprof-v3", memprof_format_version(19, "3"))
    asserts.equals(env, "", check_llvm_versions("//t", "//p", 19, 19, "clang-19"))
    asserts.equals(env, "", check_llvm_versions("//t", "//p", 19, 0, "cc"))
    msg = check_llvm_versions("//t", "//p", 16, 19, "clang-19")
    asserts.true(env, msg.startswith("//t: the profile //p is written for LLVM 16"), msg)
    return unittest.end(env)

versions_test = unittest.make(_versions_test)

def _flags_test(ctx):
    env = unittest.begin(ctx)
    asserts.equals(
        env,
        ["-gmlt", "-fdebug-info-for-profiling", "-fmemory-profile-use=p.profdata"],
        memprof_use_flags(19, "p.profdata"),
    )
    asserts.equals(
        env,
        ["-gmlt", "-fdebug-info-for-profiling", "-fprofile-use=p.profdata"],
        memprof_use_flags(16, "p.profdata"),
    )
    asserts.equals(env, ["--llvm-version", "19", "--failure-mode=any"], merge_flags(19, "", "any", 0))
    asserts.equals(
        env,
        ["--llvm-version", "22", "--memprof-version", "4", "--failure-mode=all", "-j", "2"],
        merge_flags(22, "4", "all", 2),
    )
    s = instrument_settings(["-O1", "-gmlt"], [], ["-fmemory-profile"])
    asserts.equals(env, "-O1", s["copt"][0])
    asserts.true(env, "-fmemory-profile" in s["copt"])
    asserts.equals(env, 1, len([x for x in s["copt"] if x == "-gmlt"]))
    asserts.equals(env, ["-gmlt", "-fdebug-info-for-profiling"], s["cxxopt"])
    asserts.equals(env, ["-fmemory-profile", "--driver-mode=g++", "-Wl,--build-id"], s["linkopt"])
    return unittest.end(env)

flags_test = unittest.make(_flags_test)

def _sample_test(ctx):
    env = unittest.begin(ctx)
    asserts.equals(
        env,
        ["-gmlt", "-fdebug-info-for-profiling", "-funique-internal-linkage-names", "-fprofile-sample-use=p.afdo"],
        sample_use_flags("p.afdo"),
    )
    asserts.equals(env, [[[0, 5]]], shard_plan(5, 0))
    asserts.equals(env, [[[0, 4], [4, 7], [7, 10]], [[0, 3]]], shard_plan(10, 4))
    asserts.equals(env, "00042", zero_pad(42, 5))
    return unittest.end(env)

sample_test = unittest.make(_sample_test)

def helpers_test_suite(name):
    unittest.suite(name, absolutize_test, versions_test, flags_test, sample_test)

"""Pure helpers of rules_pgo: no Bazel builtins (rule, attr, provider, depset, Label), so
go.starlark.net can run them in `go test` (helpers_test.go) next to Bazel's own unittest.

Keep to the Starlark subset of Bazel 4.2.3: no lambda, no set, no `|` on dicts."""

load(
    "//rules:llvm_releases.bzl",
    "LLVM_RELEASES",
    "MEMORY_PROFILE_USE_SINCE",
    "SUPPORTED_LLVM_VERSIONS",
)

# The transitions and the check rule agree on these names.
MEMPROF_USE_FEATURE = "pgo_memprof_use"
SAMPLE_USE_FEATURE = "pgo_sample_use"
INSTR_USE_FEATURE = "pgo_instr_use"
LLVM_MARKER_FEATURE_PREFIX = "pgo_llvm_"

def parse_llvm_version(value, what):
    """Parses an llvm_version attribute.

    Args:
      value: "" or None (unset), an int or a decimal string.
      what: the label or rule named in the error message.
    Returns:
      (version int, error string): (0, "") when unset, (0, message) when invalid.
    """
    if value == "" or value == None:
        return 0, ""
    s = str(value)
    if not s.isdigit():
        return 0, "%s: llvm_version must be one of %s, got %r" % (what, _versions_text(), s)
    v = int(s)
    if v not in SUPPORTED_LLVM_VERSIONS:
        return 0, "%s: llvm_version %d is not supported; supported: %s" % (what, v, _versions_text())
    return v, ""

def _versions_text():
    return ", ".join([str(v) for v in SUPPORTED_LLVM_VERSIONS])

def memprof_format_version(llvm_version, memprof_version = ""):
    """Names the on-disk format the merge tool writes (PgoProfileInfo.format_version).

    Args:
      llvm_version: int, the LLVM release written for.
      memprof_version: "" or the explicit --memprof-version, which wins.
    Returns:
      "indexed-vN/memprof-vM", or "" for an unknown release.
    """
    release = LLVM_RELEASES.get(llvm_version)
    if not release:
        return ""
    return "indexed-v%d/memprof-v%s" % (release["index_version"], memprof_version or release["memprof_version"])

def llvm_version_from_compiler(path):
    """Guesses the LLVM release from a compiler path.

    Args:
      path: e.g. /usr/bin/clang-19 or clang++-22.
    Returns:
      The major release as an int, 0 when the name has none.
    """
    base = path.split("/")[-1]
    for prefix in ["clang++-", "clang-"]:
        if base.startswith(prefix):
            rest = base[len(prefix):]
            if rest.isdigit():
                return int(rest)
    return 0

def memprof_use_flags(llvm_version, profile_path):
    """Returns the compile flags that make clang read an indexed MemProf profile.

    MemProf matching needs line tables with linkage names in the optimized build too
    (-gmlt -fdebug-info-for-profiling). LLVM 16 reads MemProf records through -fprofile-use;
    -fmemory-profile-use exists since LLVM 18.

    Args:
      llvm_version: int, the clang release (0 = assume a current one).
      profile_path: the profile's exec path.
    Returns:
      A list of flags.
    """
    flags = ["-gmlt", "-fdebug-info-for-profiling"]
    if llvm_version and llvm_version < MEMORY_PROFILE_USE_SINCE:
        return flags + ["-fprofile-use=" + profile_path]
    return flags + ["-fmemory-profile-use=" + profile_path]

# What a sample-profiled (AutoFDO/CSSPGO) binary is compiled with, in training and in the
# optimized build alike: line tables with discriminators and linkage names that profgen
# symbolizes, and internal-linkage names made unique so that a profile names one function.
SAMPLE_PROFILE_COPTS = [
    "-gmlt",
    "-fdebug-info-for-profiling",
    "-funique-internal-linkage-names",
]

def sample_use_flags(profile_path):
    """Returns the compile flags that make clang read a sample profile.

    Args:
      profile_path: the profile's exec path.
    Returns:
      SAMPLE_PROFILE_COPTS (as the profiled binary had them) + -fprofile-sample-use.
    """
    return SAMPLE_PROFILE_COPTS + ["-fprofile-sample-use=" + profile_path]

def sample_ready_settings(copt, cxxopt, linkopt):
    """Option values of the configuration that builds the binary to profile with perf.

    The same flags as the optimized build puts beside -fprofile-sample-use (a profile matches
    a build with the same flags), a GNU build id (profgen checks traces against it), and -gmlt
    in cxxopt too because 4.2.3's exec configuration prepends -g0 to both.

    Args:
      copt: the current --copt list.
      cxxopt: the current --cxxopt list.
      linkopt: the current --linkopt list.
    Returns:
      {"copt": [...], "cxxopt": [...], "linkopt": [...]}.
    """
    return {
        "copt": _append_missing(copt, SAMPLE_PROFILE_COPTS),
        "cxxopt": _append_missing(cxxopt, ["-gmlt"]),
        "linkopt": _append_missing(linkopt, ["-Wl,--build-id"]),
    }

def instr_use_flags(profile_path):
    """Returns the compile flags that make clang read an indexed IR PGO profile.

    Args:
      profile_path: the profile's exec path.
    Returns:
      A list of flags.
    """
    return ["-fprofile-use=" + profile_path]

def instr_settings(copt, cxxopt, linkopt, generate = "-fprofile-generate"):
    """Option values of the configuration that builds an IR-PGO-instrumented binary.

    Args:
      copt: the current --copt list.
      cxxopt: the current --cxxopt list.
      linkopt: the current --linkopt list.
      generate: -fprofile-generate, or -fcs-profile-generate for the CS-IR-PGO training build,
        which instruments after inlining on top of the -fprofile-use build of the first profile
        (its transition sets //rules:instr_profile, so the toolchain adds -fprofile-use=).
    Returns:
      {"copt": [...], "cxxopt": [...], "linkopt": [...]}.
    """
    return {
        "copt": _append_missing(copt, [generate]),
        "cxxopt": list(cxxopt),
        "linkopt": _append_missing(linkopt, [generate, "-Wl,--build-id"]),
    }

# pgo_instrumented_binary's kinds (in the order of its documentation).
TRAINING_KINDS = ["memprof", "sample", "instr", "instr_memprof", "cs_instr"]

def training_settings(kind, copt, cxxopt, linkopt):
    """Option values of the training build of a kind.

    Args:
      kind: one of TRAINING_KINDS.
      copt: the current --copt list.
      cxxopt: the current --cxxopt list.
      linkopt: the current --linkopt list.
    Returns:
      {"copt": [...], "cxxopt": [...], "linkopt": [...]}.
    """
    if kind == "sample":
        return sample_ready_settings(copt, cxxopt, linkopt)
    if kind == "instr":
        return instr_settings(copt, cxxopt, linkopt)
    if kind == "instr_memprof":
        # clang 19 and 22 build and run -fprofile-generate with -fmemory-profile: one run
        # writes both raw profiles, which instr_profile merges into one indexed file.
        m = instrument_settings(copt, cxxopt, linkopt)
        return instr_settings(m["copt"], m["cxxopt"], m["linkopt"])
    if kind == "cs_instr":
        return instr_settings(copt, cxxopt, linkopt, "-fcs-profile-generate")
    return instrument_settings(copt, cxxopt, linkopt)

def instr_format_version(llvm_version, with_memprof = False):
    """Names the indexed format the merge tool writes for IR PGO (PgoProfileInfo.format_version).

    Args:
      llvm_version: int, the LLVM release written for.
      with_memprof: the file holds MemProf records too (instr_profile's memprof_raw).
    Returns:
      "indexed-vN" ("indexed-vN/memprof-vM" with MemProf), or "" for an unknown release.
    """
    if with_memprof:
        return memprof_format_version(llvm_version)
    release = LLVM_RELEASES.get(llvm_version)
    if not release:
        return ""
    return "indexed-v%d" % release["index_version"]

def profgen_flags(llvm_version, output_format, ignore_stack_samples):
    """Returns the non-file flags of the profgen action, in a fixed order.

    CS (hybrid-trace) profiles are written flat and without cold-context merging
    (--gen-cs-nested-profile=false --csprof-merge-cold-context=false) until profgen writes
    llvm-profgen's nested default; LBR-only traces are not affected by either flag.

    Args:
      llvm_version: int, the LLVM release whose llvm-profgen to follow.
      output_format: "extbinary", "binary" or "text".
      ignore_stack_samples: read hybrid traces without their call stacks (AutoFDO profile).
    Returns:
      A list of strings.
    """
    flags = [
        "--llvm-version",
        str(llvm_version),
        "--format=" + output_format,
        "--gen-cs-nested-profile=false",
        "--csprof-merge-cold-context=false",
    ]
    if ignore_stack_samples:
        flags.append("--ignore-stack-samples")
    return flags

def sample_merge_flags(llvm_version, output_format):
    """Returns the flags of a sample-profile merge action.

    Args:
      llvm_version: int, --llvm-version.
      output_format: "extbinary", "binary" or "text".
    Returns:
      A list of strings.
    """
    return ["--sample", "--" + output_format, "--llvm-version", str(llvm_version)]

def zero_pad(i, width):
    """Formats i with leading zeros (Starlark's % has no width): names that sort in order.

    Args:
      i: a non-negative int.
      width: the minimum number of digits.
    Returns:
      The string.
    """
    s = str(i)
    return "0" * (width - len(s)) + s

def shard_plan(n, size):
    """Plans a sharded merge of n inputs, shards of at most `size` inputs.

    Each level groups the items of the level below (the inputs first, then the partial
    profiles) into balanced groups of at most `size`; the last level has one group, the final
    merge. Balanced groups (sizes differ by at most one) avoid merges of a single partial.

    Args:
      n: number of inputs.
      size: shard size; 0 (or n <= size) means one merge of everything.
    Returns:
      A list of levels; a level is a list of [start, end) pairs over the previous level's
      items (the inputs for level 0). [[[0, n]]] when no sharding is needed.
    """
    if size < 0 or size == 1:
        fail("shard size must be 0 (no sharding) or at least 2, got %d" % size)
    if size == 0 or n <= size:
        return [[[0, n]]]
    levels = []
    count = n
    for _ in range(64):
        groups = (count + size - 1) // size
        base, extra = count // groups, count % groups
        level, start = [], 0
        for g in range(groups):
            end = start + base + (1 if g < extra else 0)
            level.append([start, end])
            start = end
        levels.append(level)
        count = groups
        if groups == 1:
            break
    return levels

def instr_memprof_use_flags(llvm_version, profile_path):
    """Returns the MemProf flags for an instrumented profile that holds MemProf records too.

    clang 18+ reads the MemProf part only through -fmemory-profile-use (given the same file as
    -fprofile-use); older ones read both parts through -fprofile-use alone.

    Args:
      llvm_version: int, the clang release (0 = assume a current one).
      profile_path: the profile's exec path.
    Returns:
      A list of flags, empty for clang < 18.
    """
    if llvm_version and llvm_version < MEMORY_PROFILE_USE_SINCE:
        return []
    return memprof_use_flags(llvm_version, profile_path)

def check_memprof_sources(target, memprof_set, instr_set, instr_has_memprof, cc_version):
    """Checks where pgo_cc_binary's MemProf records come from.

    Args:
      target: the consuming target, for the message.
      memprof_set: memprof_profile is given.
      instr_set: instr_profile is given.
      instr_has_memprof: instr_profile is given and holds MemProf records (memprof_raw).
      cc_version: int, LLVM release of the toolchain's clang (0 = unknown).
    Returns:
      "" or the error message.
    """
    if memprof_set and instr_has_memprof:
        return ("%s: two MemProf profiles: instr_profile already holds MemProf records (its " +
                "memprof_raw) and clang reads one: drop memprof_profile, or the instr_profile's " +
                "memprof_raw") % target
    if memprof_set and instr_set and cc_version and cc_version < MEMORY_PROFILE_USE_SINCE:
        return ("%s: clang %d reads MemProf records through -fprofile-use, the flag of the " +
                "instrumented profile: give one indexed profile with both (instr_profile with " +
                "memprof_raw) as instr_profile, or use clang %d or later") % (
            target,
            cc_version,
            MEMORY_PROFILE_USE_SINCE,
        )
    return ""

def check_profile_mix(target, memprof_kind, sample_kind, instr_kind):
    """Checks the kinds of the profiles given to pgo_cc_binary.

    Args:
      target: the consuming target, for the message.
      memprof_kind: PgoProfileInfo.kind of the memprof_profile attribute, "" when not a
        rules_pgo profile (a checked-in file) and None when unset.
      sample_kind: same for sample_profile.
      instr_kind: same for instr_profile.
    Returns:
      "" or the error message.
    """
    if memprof_kind == None and sample_kind == None and instr_kind == None:
        return "%s: no profile: set memprof_profile, sample_profile and/or instr_profile" % target
    if sample_kind != None and instr_kind != None:
        return ("%s: a sample profile with an instrumented one: clang reads one of " +
                "-fprofile-sample-use and -fprofile-use; drop sample_profile or instr_profile " +
                "(either combines with memprof_profile)") % target
    for attr, kind, want, rule in [
        ("memprof_profile", memprof_kind, "memprof", "memprof_profile"),
        ("sample_profile", sample_kind, "sample", "sample_profile"),
        ("instr_profile", instr_kind, "instr", "instr_profile"),
    ]:
        if kind and kind != want:
            return ("%s: %s is given a %s profile (made by a %s_profile rule): pass it as " +
                    "%s_profile, and give %s a %s rule's profile") % (
                target,
                attr,
                kind,
                kind,
                kind,
                attr,
                rule,
            )
    return ""

def absolute_label(workspace_name, package, name):
    """Formats "@repo//pkg:name" ("@//pkg:name" for the main repository).

    A label flag value must not be re-resolved relative to the repository defining the flag.

    Args:
      workspace_name: Label.workspace_name ("" for the main repository).
      package: Label.package.
      name: Label.name.
    Returns:
      The label string.
    """
    return "@%s//%s:%s" % (workspace_name, package, name)

def check_llvm_versions(target, profile_label, profile_version, cc_version, cc_compiler):
    """Checks that the C++ toolchain's clang reads the profile's format.

    Args:
      target: the consuming target, for the message.
      profile_label: the profile, for the message.
      profile_version: int, LLVM release the profile was written for (0 = unknown).
      cc_version: int, LLVM release of the toolchain's clang (0 = unknown).
      cc_compiler: the compiler path, for the message.
    Returns:
      "" or the error message.
    """
    if not profile_version or not cc_version:
        return ""
    if profile_version == cc_version:
        return ""
    return ("%s: the profile %s is written for LLVM %d but the C++ toolchain's compiler %s is " +
            "LLVM %d, which cannot read it: set llvm_version = \"%d\" on the profile rule or on " +
            "the pgo toolchain (rules_pgo_register_toolchains(llvm_version = ...)), or build " +
            "with a clang %d toolchain") % (
        target,
        profile_label,
        profile_version,
        cc_compiler,
        cc_version,
        cc_version,
        profile_version,
    )

def merge_flags(llvm_version, memprof_version, failure_mode, jobs):
    """Returns the non-file flags of the merge action, in a fixed order.

    Args:
      llvm_version: int, --llvm-version.
      memprof_version: "" or --memprof-version.
      failure_mode: "" or --failure-mode.
      jobs: 0 or -j.
    Returns:
      A list of strings.
    """
    flags = ["--llvm-version", str(llvm_version)]
    if memprof_version:
        flags.extend(["--memprof-version", str(memprof_version)])
    if failure_mode:
        flags.append("--failure-mode=" + failure_mode)
    if jobs:
        flags.extend(["-j", str(jobs)])
    return flags

def instrument_settings(copt, cxxopt, linkopt):
    """Option values of the configuration that builds a MemProf-instrumented binary.

    The flags follow memprof-formats.md §1.1; -gmlt also goes into cxxopt because 4.2.3's
    host/exec configuration prepends -g0 to both copt and cxxopt, and the C driver needs
    --driver-mode=g++ at link time to pull in the operator-new interceptors."""
    extra_c = [
        "-fmemory-profile",
        "-gmlt",
        "-fdebug-info-for-profiling",
        "-fno-omit-frame-pointer",
        "-mno-omit-leaf-frame-pointer",
        "-fno-optimize-sibling-calls",
    ]
    return {
        "copt": _append_missing(copt, extra_c),
        "cxxopt": _append_missing(cxxopt, ["-gmlt", "-fdebug-info-for-profiling"]),
        "linkopt": _append_missing(linkopt, [
            "-fmemory-profile",
            "--driver-mode=g++",
            "-Wl,--build-id",
        ]),
    }

def _append_missing(values, extra):
    out = list(values)
    for e in extra:
        if e not in out:
            out.append(e)
    return out

def absolutize_label(value, repository_name, package_name):
    """Turns a label string written in a BUILD file into "@repo//pkg:name".

    Args:
      value: the label as written (":x", "x", "//p:x", "//p", "@r//p:x", "@r").
      repository_name: native.repository_name() ("@" for the main repository on Bazel
        4.2.3, "@" or "@@" on newer ones).
      package_name: native.package_name().
    Returns:
      The absolute label string.
    """
    repo = repository_name.lstrip("@")
    if value.startswith("@"):
        at = value.lstrip("@")
        slash = at.find("//")
        if slash < 0:
            # "@repo" is "@repo//:repo".
            return "@%s//:%s" % (at, at)
        repo = at[:slash]
        value = at[slash:]
    if value.startswith("//"):
        rest = value[2:]
        colon = rest.find(":")
        if colon < 0:
            pkg = rest
            name = rest.split("/")[-1]
        else:
            pkg = rest[:colon]
            name = rest[colon + 1:]
        return "@%s//%s:%s" % (repo, pkg, name)
    name = value[1:] if value.startswith(":") else value
    return "@%s//%s:%s" % (repo, package_name, name)

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

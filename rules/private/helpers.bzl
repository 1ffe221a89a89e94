"""Pure helpers of rules_pgo: no Bazel builtins (rule, attr, provider, depset, Label), so
go.starlark.net can run them in `go test` (helpers_test.go) next to Bazel's own unittest.

Keep to the Starlark subset of Bazel 4.2.3: no lambda, no set, no `|` on dicts."""

# LLVM major releases whose indexed MemProf format the tools write.
SUPPORTED_LLVM_VERSIONS = [16, 19, 22]

# What the merge tool (like that release's llvm-profdata) writes by default, for
# PgoProfileInfo.format_version (memprof-formats.md §3; `merge --help`).
_MEMPROF_FORMAT = {
    16: "indexed-v9/memprof-v0",
    19: "indexed-v12/memprof-v0",
    22: "indexed-v12/memprof-v3",
}

# The transitions and the check rule agree on these names.
MEMPROF_USE_FEATURE = "pgo_memprof_use"
LLVM_MARKER_FEATURE_PREFIX = "pgo_llvm_"

def parse_llvm_version(value, what):
    """Returns (version int, error string). `value` is "" (unset), an int or a decimal string."""
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
    """"indexed-vN/memprof-vM" as far as known; an explicit --memprof-version wins."""
    base = _MEMPROF_FORMAT.get(llvm_version, "")
    if memprof_version and base:
        return base.split("/")[0] + "/memprof-v" + str(memprof_version)
    return base

def llvm_version_from_compiler(path):
    """LLVM major release from a compiler path like /usr/bin/clang-19 or clang++-22; 0 if none."""
    base = path.split("/")[-1]
    for prefix in ["clang++-", "clang-"]:
        if base.startswith(prefix):
            rest = base[len(prefix):]
            if rest.isdigit():
                return int(rest)
    return 0

def memprof_use_flags(llvm_version, profile_path):
    """The compile flags that make clang read an indexed MemProf profile.

    MemProf matching needs line tables with linkage names in the optimized build too
    (-gmlt -fdebug-info-for-profiling). LLVM 16 reads MemProf records through -fprofile-use;
    -fmemory-profile-use exists since LLVM 18."""
    flags = ["-gmlt", "-fdebug-info-for-profiling"]
    if llvm_version and llvm_version < 18:
        return flags + ["-fprofile-use=" + profile_path]
    return flags + ["-fmemory-profile-use=" + profile_path]

def absolute_label(workspace_name, package, name):
    """"@repo//pkg:name" for a label flag value that must not be re-resolved relative to the
    repository defining the flag (the main repository gives "@//pkg:name")."""
    return "@%s//%s:%s" % (workspace_name, package, name)

def check_llvm_versions(target, profile_label, profile_version, cc_version, cc_compiler):
    """Returns "" or the error message for a profile the C++ toolchain cannot read."""
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
    """The non-file flags of the merge action, in a fixed order."""
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
    extra_c = ["-fmemory-profile", "-gmlt", "-fdebug-info-for-profiling",
               "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer",
               "-fno-optimize-sibling-calls"]
    return {
        "copt": _append_missing(copt, extra_c),
        "cxxopt": _append_missing(cxxopt, ["-gmlt", "-fdebug-info-for-profiling"]),
        "linkopt": _append_missing(linkopt, ["-fmemory-profile", "--driver-mode=g++",
                                             "-Wl,--build-id"]),
    }

def _append_missing(values, extra):
    out = list(values)
    for e in extra:
        if e not in out:
            out.append(e)
    return out

def absolutize_label(value, repository_name, package_name):
    """Turns a label string written in a BUILD file into "@repo//pkg:name".

    repository_name is native.repository_name() ("@" for the main repository on Bazel 4.2.3,
    "@" or "@@" on newer ones), package_name is native.package_name()."""
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

"""WORKSPACE setup of rules_pgo (Bazel 4.2.3 … 8 with WORKSPACE). Bzlmod users: MODULE.bazel.

    load("@rules_pgo//toolchain:repositories.bzl", "rules_pgo_dependencies",
         "rules_pgo_register_toolchains", "rules_pgo_register_cc_toolchain")
    rules_pgo_dependencies()
    rules_pgo_register_toolchains()          # tools built from source, for LLVM 19
    rules_pgo_register_cc_toolchain()        # @pgo_cc around clang-22 (the default release)

The bzlmod extensions (extensions.bzl) call these same macros. This file and what it loads
need no other repository (llvm_releases.bzl is a plain table), so it can run before any
other repository exists."""

load("//rules:llvm_releases.bzl", "DEFAULT_LLVM_VERSION")
load("//toolchain/private:cc_repo.bzl", "DEFAULT_CLANG", "pgo_cc_toolchain_repository")
load("//toolchain/private:tools_repo.bzl", "pgo_toolchains_repository", "pgo_tools_repository")
load("//toolchain/private:versions.bzl", "PLATFORMS", "TOOL_RELEASES")

def rules_pgo_dependencies():
    """Declares the repositories rules_pgo needs (none today).

    @platforms and @bazel_tools are built in, and users never need rules_go: the tools are
    prebuilt or built with the host `go`."""
    pass

def rules_pgo_register_toolchains(
        name = "pgo",
        llvm_version = str(DEFAULT_LLVM_VERSION),
        tools = "source",
        version = "",
        urls = {},
        sha256 = {},
        path = "",
        go = "",
        register = True):
    """Declares the rules_pgo tool repositories and registers their toolchains.

    Args:
      name: prefix of the repositories (@<name>_toolchains, @<name>_<platform>).
      llvm_version: the LLVM release the tools write for by default (--llvm-version of
        merge): one of SUPPORTED_LLVM_VERSIONS, default DEFAULT_LLVM_VERSION (both in
        rules/llvm_releases.bzl: 16, 19, 22 and 19). Must match the clang of your
        C++ toolchain.
      tools: where the binaries come from: "prebuilt" (archives pinned by sha256),
        "source" (host `go build -trimpath` of this module; offline with a filled module
        cache), or "local" (a directory with merge and symbolize).
      version: prebuilt: a release listed in toolchain/private/versions.bzl.
      urls: prebuilt: {platform: [url, ...]} ("linux_amd64", ...), overrides `version`.
      sha256: prebuilt: {platform: sha256}.
      path: local: the directory.
      go: source: the go command (default: `go` on PATH, then /usr/local/go/bin/go).
      register: call native.register_toolchains (False: register @<name>_toolchains//:all
        yourself; the pgo module extension passes False, MODULE.bazel registers them).
    """
    toolchains = {}
    constraints = {}
    if tools == "prebuilt":
        if not urls and version:
            if version not in TOOL_RELEASES:
                fail("rules_pgo_register_toolchains: unknown release %r; known: %s" % (version, sorted(TOOL_RELEASES.keys())))
            for platform, (url, sha) in TOOL_RELEASES[version].items():
                urls = dict(urls, **{platform: [url]})
                sha256 = dict(sha256, **{platform: sha})
        if not urls:
            fail("rules_pgo_register_toolchains: tools = \"prebuilt\" needs version or urls + sha256")
        for platform in sorted(urls.keys()):
            if platform not in PLATFORMS:
                fail("rules_pgo_register_toolchains: unknown platform %r; known: %s" % (platform, sorted(PLATFORMS.keys())))
            if platform not in sha256:
                fail("rules_pgo_register_toolchains: no sha256 for %s" % platform)
            repo = "%s_%s" % (name, platform)
            pgo_tools_repository(
                name = repo,
                mode = "prebuilt",
                urls = urls[platform],
                sha256 = sha256[platform],
                llvm_version = llvm_version,
            )
            toolchains[platform] = "@" + repo
            constraints[platform] = ",".join(PLATFORMS[platform])
    elif tools in ["source", "local"]:
        repo = "%s_host" % name
        pgo_tools_repository(
            name = repo,
            mode = tools,
            path = path,
            go = go,
            llvm_version = llvm_version,
        )
        toolchains["host"] = "@" + repo
    else:
        fail("rules_pgo_register_toolchains: tools must be \"prebuilt\", \"source\" or \"local\", got %r" % tools)
    pgo_toolchains_repository(
        name = name + "_toolchains",
        toolchains = toolchains,
        exec_constraints = constraints,
    )
    if register:
        native.register_toolchains("@%s_toolchains//:all" % name)

def rules_pgo_register_cc_toolchain(name = "pgo_cc", clang = DEFAULT_CLANG, llvm_version = ""):
    """Declares @<name>: a clang C/C++ toolchain that consumes rules_pgo profiles.

    Select it with --crosstool_top=@<name>//:toolchain --host_crosstool_top=@<name>//:toolchain
    (Bazel 4.2.3), or register_toolchains("@<name>//:cc_toolchain") with platforms (7+)."""
    pgo_cc_toolchain_repository(name = name, clang = clang, llvm_version = llvm_version)

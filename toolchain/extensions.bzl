"""Bzlmod extensions of rules_pgo (Bazel 7+; not runnable on Bazel 4.2.3, see docs/bazel.md).

    pgo = use_extension("@rules_pgo//toolchain:extensions.bzl", "pgo")
    pgo.toolchain(llvm_version = "19", tools = "prebuilt", version = "...")
    pgo_cc = use_extension("@rules_pgo//toolchain:extensions.bzl", "pgo_cc")
    pgo_cc.toolchain(name = "pgo_cc", clang = "clang-19")

Only the first pgo.toolchain tag wins, and a root module's tags win over rules_pgo's own
default (the root module is visited first)."""

load("//toolchain/private:cc_repo.bzl", "pgo_cc_toolchain_repository")
load("//toolchain/private:tools_repo.bzl", "pgo_toolchains_repository", "pgo_tools_repository")
load("//toolchain/private:versions.bzl", "PLATFORMS", "TOOL_RELEASES")

_toolchain_tag = tag_class(attrs = {
    "llvm_version": attr.string(default = "19"),
    "tools": attr.string(default = "source", values = ["prebuilt", "source", "local"]),
    "version": attr.string(),
    "urls": attr.string_list_dict(),
    "sha256": attr.string_dict(),
    "path": attr.string(),
    "go": attr.string(),
})

def _metadata(module_ctx):
    if hasattr(module_ctx, "extension_metadata"):
        return module_ctx.extension_metadata(reproducible = True)
    return None

def _pgo_impl(module_ctx):
    chosen = None
    for mod in module_ctx.modules:
        for tag in mod.tags.toolchain:
            if chosen == None:
                chosen = tag
            elif not mod.is_root and mod.name != "rules_pgo":
                # buildifier: disable=print
                print("NOTE: pgo.toolchain in module %s ignored; using the first one (root module first)" % mod.name)
    if chosen == None:
        fail("pgo: no pgo.toolchain tag")
    toolchains = {}
    constraints = {}
    if chosen.tools == "prebuilt":
        urls = dict(chosen.urls)
        sha = dict(chosen.sha256)
        if not urls:
            if chosen.version not in TOOL_RELEASES:
                fail("pgo.toolchain: unknown release %r" % chosen.version)
            for platform, (url, s) in TOOL_RELEASES[chosen.version].items():
                urls[platform] = [url]
                sha[platform] = s
        for platform in sorted(urls.keys()):
            if platform not in PLATFORMS or platform not in sha:
                fail("pgo.toolchain: platform %r unknown or without sha256" % platform)
            pgo_tools_repository(
                name = "pgo_" + platform,
                mode = "prebuilt",
                urls = urls[platform],
                sha256 = sha[platform],
                llvm_version = chosen.llvm_version,
            )
            toolchains[platform] = "@pgo_" + platform
            constraints[platform] = ",".join(PLATFORMS[platform])
    else:
        pgo_tools_repository(
            name = "pgo_host",
            mode = chosen.tools,
            path = chosen.path,
            go = chosen.go,
            llvm_version = chosen.llvm_version,
        )
        toolchains["host"] = "@pgo_host"
    pgo_toolchains_repository(name = "pgo_toolchains", toolchains = toolchains, exec_constraints = constraints)
    return _metadata(module_ctx)

pgo = module_extension(
    implementation = _pgo_impl,
    tag_classes = {"toolchain": _toolchain_tag},
)

def _pgo_cc_impl(module_ctx):
    seen = {}
    for mod in module_ctx.modules:
        for tag in mod.tags.toolchain:
            if tag.name in seen:
                continue
            seen[tag.name] = True
            pgo_cc_toolchain_repository(name = tag.name, clang = tag.clang, llvm_version = tag.llvm_version)
    return _metadata(module_ctx)

pgo_cc = module_extension(
    implementation = _pgo_cc_impl,
    tag_classes = {"toolchain": tag_class(attrs = {
        "name": attr.string(default = "pgo_cc"),
        "clang": attr.string(default = "clang-19"),
        "llvm_version": attr.string(),
    })},
)

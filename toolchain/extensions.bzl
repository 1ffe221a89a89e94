"""Bzlmod extensions of rules_pgo (Bazel 7+; not runnable on Bazel 4.2.3, see docs/bazel.md).

    pgo = use_extension("@rules_pgo//toolchain:extensions.bzl", "pgo")
    pgo.toolchain(tools = "prebuilt", version = "...")   # llvm_version: default 22
    pgo_cc = use_extension("@rules_pgo//toolchain:extensions.bzl", "pgo_cc")
    pgo_cc.toolchain(name = "pgo_cc")                     # clang: default clang-22

Both call the WORKSPACE macros of repositories.bzl (one implementation), with the same
defaults. Only the first pgo.toolchain tag wins, and a root module's tags win over rules_pgo's
own default (the root module is visited first)."""

load("//rules:llvm_releases.bzl", "DEFAULT_LLVM_VERSION")
load("//toolchain/private:cc_repo.bzl", "DEFAULT_CLANG")
load(":repositories.bzl", "rules_pgo_register_cc_toolchain", "rules_pgo_register_toolchains")

_toolchain_tag = tag_class(attrs = {
    "llvm_version": attr.string(default = str(DEFAULT_LLVM_VERSION)),
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

    # @pgo_toolchains (MODULE.bazel registers @pgo_toolchains//:all), @pgo_<platform> or @pgo_host.
    rules_pgo_register_toolchains(
        name = "pgo",
        llvm_version = chosen.llvm_version,
        tools = chosen.tools,
        version = chosen.version,
        urls = chosen.urls,
        sha256 = chosen.sha256,
        path = chosen.path,
        go = chosen.go,
        register = False,
    )
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
            rules_pgo_register_cc_toolchain(name = tag.name, clang = tag.clang, llvm_version = tag.llvm_version)
    return _metadata(module_ctx)

pgo_cc = module_extension(
    implementation = _pgo_cc_impl,
    tag_classes = {"toolchain": tag_class(attrs = {
        "name": attr.string(default = "pgo_cc"),
        "clang": attr.string(default = DEFAULT_CLANG),
        "llvm_version": attr.string(),
    })},
)

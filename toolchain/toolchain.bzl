"""pgo_toolchain: the rules_pgo tools (merge, symbolize, profgen) for one execution platform."""

load("//rules:defs.bzl", "PgoToolchainInfo")
load("//rules:llvm_releases.bzl", "SUPPORTED_LLVM_VERSIONS")

_VERSIONS = [str(v) for v in SUPPORTED_LLVM_VERSIONS]

def _impl(ctx):
    version = int(ctx.attr.llvm_version)
    merge = ctx.attr.merge[DefaultInfo].files_to_run
    symbolize = ctx.attr.symbolize[DefaultInfo].files_to_run
    profgen = ctx.attr.profgen[DefaultInfo].files_to_run if ctx.attr.profgen else None
    info = PgoToolchainInfo(
        merge = ctx.executable.merge,
        symbolize = ctx.executable.symbolize,
        merge_files_to_run = merge,
        symbolize_files_to_run = symbolize,
        profgen = ctx.executable.profgen if ctx.attr.profgen else None,
        profgen_files_to_run = profgen,
        llvm_version = version,
    )
    return [
        platform_common.ToolchainInfo(pgo = info),
        platform_common.TemplateVariableInfo({
            "PGO_MERGE": ctx.executable.merge.path,
            "PGO_SYMBOLIZE": ctx.executable.symbolize.path,
            "PGO_PROFGEN": ctx.executable.profgen.path if ctx.attr.profgen else "false",
            "PGO_LLVM_VERSION": str(version),
        }),
    ]

pgo_toolchain = rule(
    implementation = _impl,
    doc = "The tools of rules_pgo for one execution platform, as a toolchain of " +
          "@rules_pgo//toolchain:toolchain_type.",
    attrs = {
        "merge": attr.label(
            mandatory = True,
            executable = True,
            allow_single_file = True,
            cfg = "exec",
            doc = "The merge tool (raw profiles + profiled binary → indexed profile).",
        ),
        "symbolize": attr.label(
            mandatory = True,
            executable = True,
            allow_single_file = True,
            cfg = "exec",
            doc = "The symbolize tool (addresses → inline frames).",
        ),
        "profgen": attr.label(
            executable = True,
            allow_single_file = True,
            cfg = "exec",
            doc = "The profgen tool (perf script + binary → sample profile). Optional: " +
                  "sample_profile(perf = ...) fails without it.",
        ),
        "llvm_version": attr.string(
            mandatory = True,
            values = _VERSIONS,
            doc = "LLVM release (" + ", ".join(_VERSIONS) + ") whose formats the tools write by " +
                  "default; passed to merge as --llvm-version. pgo_cc_binary fails when it " +
                  "differs from the C++ toolchain's clang.",
        ),
    },
)

def _resolved_impl(ctx):
    tc = ctx.toolchains[str(Label("//toolchain:toolchain_type"))]
    pgo = tc.pgo
    return [
        DefaultInfo(files = depset([pgo.merge, pgo.symbolize] + ([pgo.profgen] if pgo.profgen else []))),
        platform_common.TemplateVariableInfo({
            "PGO_MERGE": pgo.merge.path,
            "PGO_SYMBOLIZE": pgo.symbolize.path,
            "PGO_PROFGEN": pgo.profgen.path if pgo.profgen else "false",
            "PGO_LLVM_VERSION": str(pgo.llvm_version),
        }),
    ]

resolved_toolchain = rule(
    implementation = _resolved_impl,
    toolchains = [str(Label("//toolchain:toolchain_type"))],
    doc = "The resolved pgo toolchain for genrules: toolchains = [\"@rules_pgo//toolchain:resolved_toolchain\"], " +
          "tools = [the same label], then $(PGO_MERGE), $(PGO_SYMBOLIZE), $(PGO_PROFGEN), $(PGO_LLVM_VERSION) (bazel#14009 workaround).",
)

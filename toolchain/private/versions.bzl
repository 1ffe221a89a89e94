"""Prebuilt tool archives by release: {version: {platform: (url, sha256)}}.

Filled at release time (empty until the first release); users can always pass urls and sha256
to rules_pgo_register_toolchains(tools = "prebuilt", ...) themselves."""

TOOL_RELEASES = {}

# Platform name → constraint values of the toolchain() targets.
PLATFORMS = {
    "linux_amd64": ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    "linux_arm64": ["@platforms//os:linux", "@platforms//cpu:aarch64"],
    "darwin_amd64": ["@platforms//os:osx", "@platforms//cpu:x86_64"],
    "darwin_arm64": ["@platforms//os:osx", "@platforms//cpu:aarch64"],
}

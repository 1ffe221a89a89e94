"""Configuration transitions of rules_pgo.

The optimized build sets the label_flag //rules:memprof_profile to the profile target; a C++
toolchain wired for rules_pgo (see cc_features.bzl) lists that flag in its compiler files and
turns it into -fmemory-profile-use=<path> on every compile action. The profile rule's own
binary is built with the flag reset, which keeps the graph acyclic (spec §2.2 item 1)."""

load(":helpers.bzl", "instrument_settings")

# Stringified through Label() so that they name rules_pgo's targets from any repository.
MEMPROF_FLAG = str(Label("//rules:memprof_profile"))
EMPTY_PROFILE = str(Label("//rules:empty"))

_COPT = "//command_line_option:copt"
_CXXOPT = "//command_line_option:cxxopt"
_LINKOPT = "//command_line_option:linkopt"
_MODE = "//command_line_option:compilation_mode"
_STRIP = "//command_line_option:strip"

def _optimize_impl(settings, attr):
    # memprof_profile is an absolute label *string* (made so by the pgo_cc_binary macro): a
    # label attribute would analyse the profile's graph once more in the pre-transition
    # configuration (spec §12.3, "Configurations").
    profile = getattr(attr, "memprof_profile", "")
    out = {
        _MODE: "opt",
        MEMPROF_FLAG: EMPTY_PROFILE,
        _COPT: settings[_COPT] + getattr(attr, "copts", []),
    }
    if profile:
        out[MEMPROF_FLAG] = profile
    return out

optimize_transition = transition(
    implementation = _optimize_impl,
    inputs = [_COPT],
    outputs = [_MODE, MEMPROF_FLAG, _COPT],
)

def _instrument_impl(settings, _attr):
    s = instrument_settings(settings[_COPT], settings[_CXXOPT], settings[_LINKOPT])
    return {
        MEMPROF_FLAG: EMPTY_PROFILE,
        _MODE: "opt",
        _COPT: s["copt"],
        _CXXOPT: s["cxxopt"],
        _LINKOPT: s["linkopt"],
        _STRIP: "never",
    }

instrument_transition = transition(
    implementation = _instrument_impl,
    inputs = [_COPT, _CXXOPT, _LINKOPT],
    outputs = [MEMPROF_FLAG, _MODE, _COPT, _CXXOPT, _LINKOPT, _STRIP],
)

ALLOWLIST_ATTRS = {
    "_allowlist_function_transition": attr.label(
        default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
    ),
}

"""Configuration transitions of rules_pgo.

The optimized build sets the label_flags //rules:memprof_profile, :sample_profile and
:instr_profile to the profile targets; a C++ toolchain wired for rules_pgo (see cc_features.bzl)
lists those flags in its compiler files and turns them into -fmemory-profile-use=<path>,
-fprofile-sample-use=<path> and -fprofile-use=<path> on every compile action. The profile rules' own binaries are built
with both flags reset, which keeps the graph acyclic (spec §2.2 item 1)."""

load(":helpers.bzl", "absolutize_label", "training_settings")

# Stringified through Label() so that they name rules_pgo's targets from any repository.
MEMPROF_FLAG = str(Label("//rules:memprof_profile"))
SAMPLE_FLAG = str(Label("//rules:sample_profile"))
INSTR_FLAG = str(Label("//rules:instr_profile"))
EMPTY_PROFILE = str(Label("//rules:empty"))

_COPT = "//command_line_option:copt"
_CXXOPT = "//command_line_option:cxxopt"
_LINKOPT = "//command_line_option:linkopt"
_MODE = "//command_line_option:compilation_mode"
_STRIP = "//command_line_option:strip"

def _optimize_impl(settings, attr):
    # The profiles are absolute label *strings* (made so by the pgo_cc_binary macro): a
    # label attribute would analyse the profile's graph once more in the pre-transition
    # configuration (spec §12.3, "Configurations").
    return {
        _MODE: "opt",
        MEMPROF_FLAG: getattr(attr, "memprof_profile", "") or EMPTY_PROFILE,
        SAMPLE_FLAG: getattr(attr, "sample_profile", "") or EMPTY_PROFILE,
        INSTR_FLAG: getattr(attr, "instr_profile", "") or EMPTY_PROFILE,
        _COPT: settings[_COPT] + getattr(attr, "copts", []),
    }

optimize_transition = transition(
    implementation = _optimize_impl,
    inputs = [_COPT],
    outputs = [_MODE, MEMPROF_FLAG, SAMPLE_FLAG, INSTR_FLAG, _COPT],
)

def _training_settings(settings, kind, instr_profile = ""):
    s = training_settings(kind, settings[_COPT], settings[_CXXOPT], settings[_LINKOPT])
    return {
        MEMPROF_FLAG: EMPTY_PROFILE,
        SAMPLE_FLAG: EMPTY_PROFILE,
        # Set only for CS-IR-PGO training (-fcs-profile-generate over -fprofile-use).
        INSTR_FLAG: instr_profile or EMPTY_PROFILE,
        _MODE: "opt",
        _COPT: s["copt"],
        _CXXOPT: s["cxxopt"],
        _LINKOPT: s["linkopt"],
        _STRIP: "never",
    }

_TRAINING_INPUTS = [_COPT, _CXXOPT, _LINKOPT]
_TRAINING_OUTPUTS = [MEMPROF_FLAG, SAMPLE_FLAG, INSTR_FLAG, _MODE, _COPT, _CXXOPT, _LINKOPT, _STRIP]

def _instrument_impl(settings, attr):
    # kind: pgo_instrumented_binary's attribute. memprof_profile's and instr_profile's
    # `binary` have none: MemProf instrumentation, or both for instr_profile (the rule with
    # memprof_raw).
    kind = getattr(attr, "kind", "instr_memprof" if hasattr(attr, "memprof_raw") else "memprof")
    if kind == "cs_instr":
        return _training_settings(settings, kind, getattr(attr, "instr_profile", ""))
    return _training_settings(settings, kind)

# The binary that is run to train: both profile flags reset (no cycle), -c opt, not stripped.
instrument_transition = transition(
    implementation = _instrument_impl,
    inputs = _TRAINING_INPUTS,
    outputs = _TRAINING_OUTPUTS,
)

def _sample_ready_impl(settings, _attr):
    return _training_settings(settings, "sample")

# sample_profile's `binary` attribute: a target is rebuilt sample-ready.
sample_ready_transition = transition(
    implementation = _sample_ready_impl,
    inputs = _TRAINING_INPUTS,
    outputs = _TRAINING_OUTPUTS,
)

ALLOWLIST_ATTRS = {
    "_allowlist_function_transition": attr.label(
        default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
    ),
}

# buildifier: disable=unnamed-macro
def absolute_label_string(value):
    """A label as written in a BUILD file → an absolute label string (for macros).

    The label_flag value must not be re-resolved inside @rules_pgo. Bazel 7+ has
    native.package_relative_label (canonical "@@repo//..." strings, bzlmod-safe).

    Args:
      value: the label string.
    Returns:
      The absolute label string.
    """
    if hasattr(native, "package_relative_label"):
        return str(native.package_relative_label(value))
    return absolutize_label(value, native.repository_name(), native.package_name())

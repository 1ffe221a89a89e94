"""Public API of rules_pgo. Load everything from here; //rules/private may change at any time.

    load("@rules_pgo//rules:defs.bzl", "instr_profile", "memprof_profile", "pgo_cc_binary", "sample_profile")
"""

load("//rules/private:cc_features.bzl", _PGO_CC_TOOLCHAIN_CONFIG_ATTRS = "PGO_CC_TOOLCHAIN_CONFIG_ATTRS", _PGO_CC_TOOLCHAIN_CONFIG_ATTRS_TARGET_CFG = "PGO_CC_TOOLCHAIN_CONFIG_ATTRS_TARGET_CFG", _pgo_cc_features = "pgo_cc_features")
load("//rules/private:instr_profile.bzl", _instr_profile = "instr_profile")
load("//rules/private:instrumented_binary.bzl", _pgo_instrumented_binary = "pgo_instrumented_binary")
load("//rules/private:memprof_profile.bzl", _memprof_profile = "memprof_profile")
load("//rules/private:pgo_cc_binary.bzl", _pgo_cc_binary = "pgo_cc_binary")
load("//rules/private:providers.bzl", _PgoProfileInfo = "PgoProfileInfo", _PgoToolchainInfo = "PgoToolchainInfo")
load("//rules/private:sample_profile.bzl", _sample_profile = "sample_profile")

instr_profile = _instr_profile
memprof_profile = _memprof_profile
pgo_cc_binary = _pgo_cc_binary
pgo_instrumented_binary = _pgo_instrumented_binary
sample_profile = _sample_profile
PgoProfileInfo = _PgoProfileInfo
PgoToolchainInfo = _PgoToolchainInfo
PGO_CC_TOOLCHAIN_CONFIG_ATTRS = _PGO_CC_TOOLCHAIN_CONFIG_ATTRS
PGO_CC_TOOLCHAIN_CONFIG_ATTRS_TARGET_CFG = _PGO_CC_TOOLCHAIN_CONFIG_ATTRS_TARGET_CFG
pgo_cc_features = _pgo_cc_features

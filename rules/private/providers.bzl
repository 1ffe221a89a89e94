"""Providers of rules_pgo. Private: load them from //rules:defs.bzl."""

PgoProfileInfo = provider(
    doc = """An indexed profile that clang reads, produced by one of the profile rules.

A rule that consumes a profile (pgo_cc_binary) checks `kind` against the attribute it was
given and `llvm_version` against the LLVM release of the C++ toolchain that will read it.""",
    fields = {
        "file": "File: the indexed profile (`<name>.profdata` for memprof and instr, " +
                "`<name>.afdo` for sample).",
        "kind": "string: \"memprof\", \"sample\" or \"instr\".",
        "format_version": "string: the on-disk format written, e.g. \"indexed-v12/memprof-v3\" " +
                          "for LLVM 19; \"\" when the rule cannot know it.",
        "llvm_version": "int: the LLVM major release whose clang reads `file` (16, 19 or 22).",
        "profiled_build_id": "string: the GNU build id (hex) of the profiled binary when it " +
                             "was given as a string attribute, else \"\".",
        "build_id_file": "File or None: a file holding the profiled binary's build id in hex, " +
                         "written by the profile action (always set for memprof).",
        "profiled_binary": "File: the binary whose addresses the raw profiles hold.",
        "has_memprof": "bool: an instr profile that holds MemProf records too " +
                       "(instr_profile's memprof_raw); read with getattr(info, " +
                       "\"has_memprof\", False).",
    },
)

PgoToolchainInfo = provider(
    doc = """The tools of a `pgo_toolchain`, returned inside `platform_common.ToolchainInfo`
as its `pgo` field.""",
    fields = {
        "merge": "File: the `merge` executable (raw profiles + binary → indexed profile).",
        "symbolize": "File: the `symbolize` executable (addresses → source locations).",
        "merge_files_to_run": "FilesToRunProvider of `merge`.",
        "symbolize_files_to_run": "FilesToRunProvider of `symbolize`.",
        "profgen": "File or None: the `profgen` executable (perf script + binary → sample " +
                   "profile); None with a tools archive older than sample_profile.",
        "profgen_files_to_run": "FilesToRunProvider of `profgen`, or None.",
        "llvm_version": "int: the LLVM release the tools write for, passed as --llvm-version.",
    },
)

PgoCcToolchainCheckInfo = provider(
    doc = "Internal: what the C++ toolchain of a configuration does with profiles.",
    fields = {
        "consumes_memprof": "bool: the toolchain enables the `pgo_memprof_use` feature.",
        "consumes_sample": "bool: the toolchain enables the `pgo_sample_use` feature.",
        "consumes_instr": "bool: the toolchain enables the `pgo_instr_use` feature.",
        "instr_info": "PgoProfileInfo of //rules:instr_profile's target, or None.",
        "memprof_info": "PgoProfileInfo of //rules:memprof_profile's target, or None.",
        "sample_info": "PgoProfileInfo of //rules:sample_profile's target, or None.",
        "llvm_version": "int: the toolchain's LLVM major release, 0 when unknown.",
        "compiler": "string: the toolchain's compiler executable (for messages).",
        "cpu": "string: the toolchain's target cpu (for messages).",
    },
)

package llvmrelease

import (
	"fmt"
	"strings"
)

// Release is an LLVM major release number (16, 19, 22). What a release
// does differently is a method here, named after the LLVM fact and citing
// the release that changed it; no other package compares a release with a
// number (internal/release_test.go checks it). The zero Release means
// Default (OrDefault).
type Release int

// OrDefault is r, or Default for the zero Release.
func (r Release) OrDefault() Release {
	if r == 0 {
		return Default
	}
	return r
}

// Supported reports whether r is a row of the table.
func (r Release) Supported() bool {
	_, ok := Lookup(r)
	return ok
}

// profgenReleases are the releases whose llvm-profgen profgen follows:
// llvm-profgen 16 is not emulated.
var profgenReleases = []Release{19, 22}

// HasProfgen reports whether profgen follows r's llvm-profgen.
func (r Release) HasProfgen() bool {
	for _, p := range profgenReleases {
		if p == r {
			return true
		}
	}
	return false
}

// ProfgenText lists the releases whose llvm-profgen profgen follows, for
// messages: "19 or 22".
func ProfgenText() string {
	return joinOr(profgenReleases)
}

// ---- Names and hashes ----

// CanonicalMemProfNames: from LLVM 17 IndexedMemProfRecord::getGUID and
// llvm-profdata show hash and print getCanonicalFnName of a frame's name;
// LLVM 16 cut the name at the first ".llvm." and nothing else.
func (r Release) CanonicalMemProfNames() bool { return r >= 17 }

// DenseMapMixesHash: DenseMapInfo<uint64_t>::getHashValue changed in
// LLVM 19 (PR #95734): up to 18 uint32(k × 37), from 19 a mixing hash.
func (r Release) DenseMapMixesHash() bool { return r >= 19 }

// SampleMapHashesMD5: from LLVM 19 the sample profile reader's maps
// (SampleProfileMap, the callsite maps) are keyed by the MD5-based hash of
// a FunctionId and of a context's frames; LLVM 16 keyed them by
// std::hash of the name string.
func (r Release) SampleMapHashesMD5() bool { return r >= 19 }

// ---- Instrumented profiles ----

// WritesInstrProfNamesSorted: from LLVM 18 InstrProfWriter writes the
// function records with their names sorted; LLVM 16 in StringMap order
// (LLVM 17 changed the StringMap hash to xxh3; it is not emulated).
func (r Release) WritesInstrProfNamesSorted() bool { return r >= 17 }

// InstrProfValueKinds is the number of value profile kinds the release's
// writer emits: IPVK_VTableTarget came in LLVM 19, two kinds before.
func (r Release) InstrProfValueKinds() int {
	if r >= 19 {
		return 3
	}
	return 2
}

// HasVTableValueProfiles: instrumented profiles carry vtable value
// profiles (IPVK_VTableTarget, llvm-profdata show --show-vtables) from
// LLVM 19.
func (r Release) HasVTableValueProfiles() bool { return r >= 19 }

// ClangHasMCDC: clang 19 instruments MC/DC, single-byte coverage, temporal
// traces and vtable values (-fcoverage-mcdc, -pgo-function-entry-coverage
// with single-byte counters, -pgo-temporal-instrumentation,
// -enable-vtable-value-profiling); clang 16 none of them.
func (r Release) ClangHasMCDC() bool { return r >= 19 }

// HasTemporalProfiles: temporal profile traces came in LLVM 17.
func (r Release) HasTemporalProfiles() bool { return r >= 17 }

// KeepsAllRawBinaryIDs: from LLVM 19 llvm-profdata keeps the binary IDs of
// every profile in a raw file; before, only those of the last profile.
func (r Release) KeepsAllRawBinaryIDs() bool { return r >= 19 }

// TemporalTraces22: from LLVM 20 addTemporalProfileTraces samples every
// source's traces through one reservoir routine (instrprof/traces.go's
// addTraces22); LLVM 19.1 kept the first traces and sampled the rest one
// by one (addTraces19).
func (r Release) TemporalTraces22() bool { return r >= 20 }

// HasInstrumentLoopEntries: the IR variant flag instrument_loop_entries
// (VARIANT_MASK_INSTR_LOOP_ENTRIES) and its show line came in LLVM 20.
func (r Release) HasInstrumentLoopEntries() bool { return r >= 20 }

// ShowSummary20: from LLVM 20 llvm-profdata show orders its top-N heap
// stably, prints the total blocks and count right after the maxima (then
// the value cutoff counts), and gives each detailed-summary line its share
// of the blocks; before, the cutoff counts follow the function count and
// the totals open the detailed summary.
func (r Release) ShowSummary20() bool { return r >= 20 }

// ---- MemProf ----

// MemProfRawVersions are the raw versions RawMemProfReader of the release
// accepts (MEMPROF_RAW_VERSION, then MEMPROF_RAW_SUPPORTED_VERSIONS): v1 up
// to 15, v2 in 16, v3 in 17 and 18, v4 added in 19, v5 in 22.
func (r Release) MemProfRawVersions() []uint64 {
	switch {
	case r <= 15:
		return []uint64{1}
	case r == 16:
		return []uint64{2}
	case r <= 18:
		return []uint64{3}
	case r <= 21:
		return []uint64{3, 4}
	default:
		return []uint64{3, 4, 5}
	}
}

// MemProfShowsFileRawVersion: llvm-profdata show of a raw MemProf file
// prints the file's version from LLVM 17; LLVM 16 prints its own
// MEMPROF_RAW_VERSION.
func (r Release) MemProfShowsFileRawVersion() bool { return r >= 17 }

// MemProfShowsSummaryComment: from LLVM 21 llvm-profdata show opens a raw
// MemProf dump with the summary comment of MemProfSummaryBuilder.
func (r Release) MemProfShowsSummaryComment() bool { return r >= 21 }

// HasMemProfAccessHistogram: raw version 4 and its access histograms came
// in LLVM 19.
func (r Release) HasMemProfAccessHistogram() bool { return r >= 19 }

// MemProfSymbolizesPIE: from LLVM 17 RawMemProfReader symbolizes addresses
// relative to the executable segment and reads PIE; LLVM 16 symbolizes
// runtime addresses unchanged and rejects PIE.
func (r Release) MemProfSymbolizesPIE() bool { return r >= 17 }

// MemProfRuntimeFilesByName: from LLVM 17 the frames of the memprof
// runtime are recognised by the interceptor file names; LLVM 16 dropped
// every file whose path holds "memprof/memprof_".
func (r Release) MemProfRuntimeFilesByName() bool { return r >= 17 }

// MemProfDenseMapOrder: up to LLVM 19 llvm-profdata copies each input
// reader's frame and call stack DenseMaps, in their iteration order, into
// the writer's insertion-ordered maps (one run per input); from LLVM 20 the
// maps are insertion-ordered throughout.
func (r Release) MemProfDenseMapOrder() bool { return r <= 19 }

// MemProfFrameID17Bytes: from LLVM 20 a frame id is the hash of a 17-byte
// little-endian frame (PR #109501); before, of the frame's fields one by
// one.
func (r Release) MemProfFrameID17Bytes() bool { return r >= 20 }

// MemProfKeepsFirstInputCallSites: from LLVM 20 merging a record keeps
// the call sites of the input that created it; LLVM 16 and 19 append each
// input's call sites to the existing record.
func (r Release) MemProfKeepsFirstInputCallSites() bool { return r >= 20 }

// MemProfDropsLaterInputs: llvm-profdata 22's merge keeps, of an input
// that is not the first of its writer context, only the first frame
// (memprof/converter.go's fold); before 22 every input is folded whole.
func (r Release) MemProfDropsLaterInputs() bool { return r >= 22 }

// MemProfColdByDensity: from LLVM 17 getAllocType classifies by lifetime
// access density and average lifetime
// (-memprof-lifetime-access-density-cold-threshold); LLVM 16 by accesses
// per byte and minimum lifetime.
func (r Release) MemProfColdByDensity() bool { return r >= 17 }

// MemProfHotHintsNeedFlag: from LLVM 20 clang emits hot hints only under
// -memprof-use-hot-hints; LLVM 19 always.
func (r Release) MemProfHotHintsNeedFlag() bool { return r >= 20 }

// MemProfHintsPerInlineChain: from LLVM 20 the contexts of one allocation
// call share the hint of their inline chain (the frames up to the first
// one not inlined).
func (r Release) MemProfHintsPerInlineChain() bool { return r >= 20 }

// ---- Sample profiles and llvm-profgen ----

// SampleDefaultFormat is llvm-profdata merge --sample's default output
// format: extbinary from LLVM 17, binary before.
func (r Release) SampleDefaultFormat() string {
	if r >= 17 {
		return "extbinary"
	}
	return "binary"
}

// HasFailureModeWarn: llvm-profdata merge --failure-mode=warn came in
// LLVM 17.
func (r Release) HasFailureModeWarn() bool { return r >= 17 }

// SampleColdContextDepth: from LLVM 17 the cold-context trimmer honours
// --sample-frame-depth-for-cold-context; llvm-profdata-16 merges cold
// contexts into base profiles whatever it says (measured).
func (r Release) SampleColdContextDepth() bool { return r >= 17 }

// SampleLegacyReader16: LLVM 16's sample profile reader and show, measured
// against llvm-profdata-16: a repeated text header replaces the function
// it names, Profiles[Name] inserts an empty profile for a missing
// function, getSamplesFor looks the name up as is, and the MD5 name table
// is still searched for ".__uniq.".
func (r Release) SampleLegacyReader16() bool { return r <= 16 }

// HasFlatSampleLayout: --convert-sample-profile-layout=flat came in
// LLVM 19.
func (r Release) HasFlatSampleLayout() bool { return r >= 19 }

// HasVTableTypeProfiles: sample profiles carry vtable type profiles
// (text "vtables" lines, extbinary --extbinary-write-vtable-type-prof,
// llvm-profgen --data-access-perftrace) from LLVM 22.
func (r Release) HasVTableTypeProfiles() bool { return r >= 22 }

// HasSampleSplitLayout: extbinary --split-layout came in LLVM 22.
func (r Release) HasSampleSplitLayout() bool { return r >= 22 }

// SampleTextFlatMetadata: LLVM 22's text reader reads a " !Flat" metadata
// line.
func (r Release) SampleTextFlatMetadata() bool { return r >= 22 }

// SampleShowSummary22: from LLVM 22 llvm-profdata show --sample prints
// "Maximum internal block count" (always 0) and each detailed-summary line
// with its share; before, "Maximum block count" and the cutoff as a float
// percentage.
func (r Release) SampleShowSummary22() bool { return r >= 22 }

// OverlapSpellsInformation: llvm-profdata overlap --sample prints
// "Profile overlap information" from LLVM 22; up to 21 "infomation" (sic).
func (r Release) OverlapSpellsInformation() bool { return r >= 22 }

// ProfgenLoadsFunctionsFromSymbols: llvm-profgen
// --load-function-from-symbol came in LLVM 22 (LLVM 19 never reads
// functions from the symbol table).
func (r Release) ProfgenLoadsFunctionsFromSymbols() bool { return r >= 22 }

// ProfgenHas22Options: llvm-profgen's
// --csprof-max-unsymbolized-context-depth and
// --mark-all-context-preinlined came in LLVM 22.
func (r Release) ProfgenHas22Options() bool { return r >= 22 }

func joinOr(rs []Release) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprint(int(r))
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

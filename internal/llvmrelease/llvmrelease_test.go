package llvmrelease

import (
	"fmt"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	if _, ok := Lookup(Default); !ok {
		t.Fatalf("Default %d is not a supported release", Default)
	}
	if _, ok := Lookup(17); ok {
		t.Errorf("Lookup(17) found a release")
	}
	prev := 0
	for _, r := range All() {
		if r.Major <= prev {
			t.Errorf("releases not in increasing order at %d", r.Major)
		}
		prev = r.Major
		if !r.Reads(r.IndexVersion, r.MemProfVersion) {
			t.Errorf("LLVM %d does not read its own default output %+v", r.Major, r)
		}
	}
	if got := SupportedText(); got != "16, 19 or 22" {
		t.Errorf("SupportedText() = %q", got)
	}
	if got := ErrUnsupported("x", 20).Error(); got != "x: unsupported LLVM release 20 (want 16, 19 or 22)" {
		t.Errorf("ErrUnsupported = %q", got)
	}
}

// TestVersionsHelp: the facts checked against clang 19 and 22 on this
// project's CI machine (a V0 profile is rejected by clang 22, a V3 one with
// index version 12 is read by both).
func TestVersionsHelp(t *testing.T) {
	h := VersionsHelp()
	for _, want := range []string{
		"  --llvm-version 22   index version 13, MemProf V3            (clang 22 reads V2-V4)\n",
		"Without --llvm-version: 22, whose output is read by clang 22 only.",
		"One profile for clang 19 and 22: --llvm-version 19 --memprof-version 3.",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("VersionsHelp() lacks %q:\n%s", want, h)
		}
	}
}

// TestReleaseFacts: the named facts at the supported releases, as the
// format packages asked them before they moved here.
func TestReleaseFacts(t *testing.T) {
	if Release(0).OrDefault() != Default || Release(19).OrDefault() != 19 {
		t.Errorf("OrDefault: 0 → %d, 19 → %d", Release(0).OrDefault(), Release(19).OrDefault())
	}
	if !Release(16).Supported() || Release(17).Supported() {
		t.Errorf("Supported: 16 %v, 17 %v", Release(16).Supported(), Release(17).Supported())
	}
	if got := ProfgenText(); got != "19 or 22" {
		t.Errorf("ProfgenText() = %q", got)
	}
	for _, p := range profgenReleases {
		if !p.Supported() {
			t.Errorf("profgen release %d is not a supported release", p)
		}
	}
	if got := fmt.Sprint(Majors()); got != "[16 19 22]" {
		t.Errorf("Majors() = %s", got)
	}
	for _, tt := range []struct {
		name string
		f    func(Release) bool
		want string // at 16, 19, 22
	}{
		{"CanonicalMemProfNames", Release.CanonicalMemProfNames, "-++"},
		{"DenseMapMixesHash", Release.DenseMapMixesHash, "-++"},
		{"SampleMapHashesMD5", Release.SampleMapHashesMD5, "-++"},
		{"WritesInstrProfNamesSorted", Release.WritesInstrProfNamesSorted, "-++"},
		{"HasVTableValueProfiles", Release.HasVTableValueProfiles, "-++"},
		{"ClangHasMCDC", Release.ClangHasMCDC, "-++"},
		{"OverlapSpellsInformation", Release.OverlapSpellsInformation, "--+"},
		{"HasTemporalProfiles", Release.HasTemporalProfiles, "-++"},
		{"KeepsAllRawBinaryIDs", Release.KeepsAllRawBinaryIDs, "-++"},
		{"TemporalTraces22", Release.TemporalTraces22, "--+"},
		{"HasInstrumentLoopEntries", Release.HasInstrumentLoopEntries, "--+"},
		{"ShowSummary20", Release.ShowSummary20, "--+"},
		{"MemProfShowsFileRawVersion", Release.MemProfShowsFileRawVersion, "-++"},
		{"MemProfShowsSummaryComment", Release.MemProfShowsSummaryComment, "--+"},
		{"HasMemProfAccessHistogram", Release.HasMemProfAccessHistogram, "-++"},
		{"MemProfSymbolizesPIE", Release.MemProfSymbolizesPIE, "-++"},
		{"MemProfRuntimeFilesByName", Release.MemProfRuntimeFilesByName, "-++"},
		{"MemProfDenseMapOrder", Release.MemProfDenseMapOrder, "++-"},
		{"MemProfFrameID17Bytes", Release.MemProfFrameID17Bytes, "--+"},
		{"MemProfKeepsFirstInputCallSites", Release.MemProfKeepsFirstInputCallSites, "--+"},
		{"MemProfDropsLaterInputs", Release.MemProfDropsLaterInputs, "--+"},
		{"MemProfColdByDensity", Release.MemProfColdByDensity, "-++"},
		{"MemProfHotHintsNeedFlag", Release.MemProfHotHintsNeedFlag, "--+"},
		{"MemProfHintsPerInlineChain", Release.MemProfHintsPerInlineChain, "--+"},
		{"HasFailureModeWarn", Release.HasFailureModeWarn, "-++"},
		{"SampleColdContextDepth", Release.SampleColdContextDepth, "-++"},
		{"SampleLegacyReader16", Release.SampleLegacyReader16, "+--"},
		{"HasFlatSampleLayout", Release.HasFlatSampleLayout, "-++"},
		{"HasVTableTypeProfiles", Release.HasVTableTypeProfiles, "--+"},
		{"HasSampleSplitLayout", Release.HasSampleSplitLayout, "--+"},
		{"SampleTextFlatMetadata", Release.SampleTextFlatMetadata, "--+"},
		{"SampleShowSummary22", Release.SampleShowSummary22, "--+"},
		{"ProfgenLoadsFunctionsFromSymbols", Release.ProfgenLoadsFunctionsFromSymbols, "--+"},
		{"ProfgenHas22Options", Release.ProfgenHas22Options, "--+"},
		{"HasProfgen", Release.HasProfgen, "-++"},
	} {
		var got []byte
		for _, r := range []Release{16, 19, 22} {
			got = append(got, "-+"[b2i(tt.f(r))])
		}
		if string(got) != tt.want {
			t.Errorf("%s at 16, 19, 22: %s, want %s", tt.name, got, tt.want)
		}
	}
	if got := fmt.Sprint(Release(16).MemProfRawVersions(), Release(19).MemProfRawVersions(), Release(22).MemProfRawVersions()); got != "[2] [3 4] [3 4 5]" {
		t.Errorf("MemProfRawVersions at 16, 19, 22: %s", got)
	}
	if got := fmt.Sprintf("%d %s %s", Release(16).InstrProfValueKinds(), Release(19).SampleDefaultFormat(), Release(16).SampleDefaultFormat()); got != "2 extbinary binary" {
		t.Errorf("InstrProfValueKinds(16), SampleDefaultFormat(19, 16): %s", got)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

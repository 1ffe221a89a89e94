package memprof

import (
	"bufio"
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// ShowRaw converts one raw profile like Convert and writes the text dump of
// `llvm-profdata show --memory RAW --profiled-binary BIN` of
// opts.Release (16, 19 or 22; spec §6.2). The dump differs from LLVM's
// in one place only: for MIBs with a histogram, LLVM prints its own heap
// pointer as AccessHistogram, and this prints the value found in the file.
func ShowRaw(w io.Writer, raw *RawProfile, bin Symbolizer, opts ConvertOptions) error {
	c, err := NewConverter(bin, opts)
	if err != nil {
		return err
	}
	if err := c.Add(raw); err != nil {
		return err
	}
	kept, release := c.kept, c.release
	p, err := c.Profile()
	if err != nil {
		return err
	}
	return writeShowText(w, raw, p, kept, release)
}

func writeShowText(out io.Writer, raw *RawProfile, p *Profile, numStacks int, release llvmrelease.Release) error {
	records, names := p.Records, p.SymbolNames
	w := bufio.NewWriter(out)
	var numMIB, numAllocFuncs int
	for _, r := range records {
		if len(r.AllocSites) > 0 {
			numAllocFuncs++
			numMIB += len(r.AllocSites)
		}
	}
	if release.MemProfShowsSummaryComment() {
		writeSummaryComment(w, records)
	}
	version := raw.Version
	if !release.MemProfShowsFileRawVersion() {
		version = release.MemProfRawVersions()[0] // MEMPROF_RAW_VERSION
	}
	fmt.Fprintf(w, "MemprofProfile:\n  Summary:\n    Version: %d\n    NumSegments: %d\n    NumMibInfo: %d\n    NumAllocFunctions: %d\n    NumStackOffsets: %d\n",
		version, len(raw.Segments), numMIB, numAllocFuncs, numStacks)
	fmt.Fprintf(w, "  Segments:\n")
	for _, s := range raw.Segments {
		fmt.Fprintf(w, "  -\n    BuildId: %s\n    Start: 0x%X\n    End: 0x%X\n    Offset: 0x%X\n",
			s.BuildIDString(raw.Version), s.Start, s.End, s.Offset)
	}
	fmt.Fprintf(w, "  Records:\n")
	for _, r := range records {
		fmt.Fprintf(w, "  -\n    FunctionGUID: %d\n", r.GUID)
		if len(r.AllocSites) > 0 {
			fmt.Fprintf(w, "    AllocSites:\n")
			for _, a := range r.AllocSites {
				fmt.Fprintf(w, "    -\n      Callstack:\n")
				for _, f := range a.CallStack {
					writeFrameYAML(w, f, names)
				}
				writeMIBYAML(w, &a.Info, release)
			}
		}
		if len(r.CallSites) > 0 {
			fmt.Fprintf(w, "    CallSites:\n")
			for _, cs := range r.CallSites {
				for _, f := range cs.Frames {
					fmt.Fprintf(w, "    -\n")
					writeFrameYAML(w, f, names)
				}
			}
		}
	}
	return w.Flush()
}

func writeFrameYAML(w io.Writer, f Frame, names map[uint64]string) {
	name := names[f.Function]
	if name == "" {
		name = "<None>"
	}
	inline := 0
	if f.IsInlineFrame {
		inline = 1
	}
	fmt.Fprintf(w, "      -\n        Function: %d\n        SymbolName: %s\n        LineOffset: %d\n        Column: %d\n        Inline: %d\n",
		f.Function, name, f.LineOffset, f.Column, inline)
}

func writeMIBYAML(w io.Writer, m *MemInfoBlock, release llvmrelease.Release) {
	fmt.Fprintf(w, "      MemInfoBlock:\n")
	for _, t := range KnownFields(release) {
		fmt.Fprintf(w, "        %s: %d\n", t, m.Field(t))
	}
	if release.HasMemProfAccessHistogram() && m.AccessHistogramSize > 0 {
		fmt.Fprintf(w, "        AccessHistogramValues:")
		for i := 0; i < int(m.AccessHistogramSize) && i < len(m.Histogram); i++ {
			fmt.Fprintf(w, " %d", m.Histogram[i])
		}
		fmt.Fprintf(w, "\n")
	}
}

// writeSummaryComment prints the MemProfSummary YAML comment block that
// LLVM 21+ puts before the dump (MemProfSummaryBuilder with the default
// thresholds of DefaultAllocType).
func writeSummaryComment(w io.Writer, records []*Record) {
	var s Summary
	seen := map[string]bool{}
	for _, r := range records {
		for _, a := range r.AllocSites {
			k := frameKey(a.CallStack)
			if seen[k] {
				continue
			}
			seen[k] = true
			s.Add(&a.Info)
		}
	}
	s.writeComment(w)
}

// AllocType is llvm::memprof::AllocationType.
type AllocType uint8

// The allocation types, with LLVM's values.
const (
	NotCold AllocType = 1
	Cold    AllocType = 2
	Hot     AllocType = 4
)

// DefaultAllocType is llvm::memprof::getAllocType with the defaults of
// MemProfCommon.cpp (LLVM 21+), which llvm-profdata applies when it writes
// the MemProf summary: cold when the average lifetime access density
// (accesses per byte per lifetime second) is below 0.05 and the average
// lifetime is at least 200 s; hot hints are off by default. Single-precision
// arithmetic, as in LLVM. internal/profview classifies with any release's
// thresholds.
func (m *MemInfoBlock) DefaultAllocType() AllocType {
	density := float32(m.TotalLifetimeAccessDensity) / float32(m.AllocCount) / 100
	lifetime := float32(m.TotalLifetime) / float32(m.AllocCount)
	if density < float32(0.05) && lifetime >= float32(200*1000) {
		return Cold
	}
	return NotCold
}

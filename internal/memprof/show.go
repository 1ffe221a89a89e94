package memprof

import (
	"bufio"
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// ShowRaw converts one raw profile like Convert and writes the text dump of
// `llvm-profdata show --memory RAW --profiled-binary BIN` of
// opts.LLVMRelease (16, 19 or 22; spec §6.2). The dump differs from LLVM's
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

// WriteShowText writes the llvm-profdata show --memory dump of a converted
// single-input profile. numStacks is the NumStackOffsets line (stacks kept
// after symbolization); ShowRaw computes it.
func WriteShowText(w io.Writer, raw *RawProfile, p *Profile, numStacks int, llvmRelease int) error {
	if llvmRelease == 0 {
		llvmRelease = llvmrelease.Default
	}
	return writeShowText(w, raw, p, numStacks, llvmRelease)
}

func writeShowText(out io.Writer, raw *RawProfile, p *Profile, numStacks, release int) error {
	records, names := p.Records, p.SymbolNames
	w := bufio.NewWriter(out)
	var numMIB, numAllocFuncs int
	for _, r := range records {
		if len(r.AllocSites) > 0 {
			numAllocFuncs++
			numMIB += len(r.AllocSites)
		}
	}
	if release >= 21 {
		writeSummaryComment(w, records)
	}
	version := raw.Version
	if release <= 16 {
		version = rawVersionsAccepted(release)[0] // MEMPROF_RAW_VERSION
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

func writeMIBYAML(w io.Writer, m *MemInfoBlock, release int) {
	fmt.Fprintf(w, "      MemInfoBlock:\n")
	last := MetaAccessHistogram
	if release <= 18 {
		last = MetaMaxLifetimeAccessDensity
	}
	for t := MetaAllocCount; t <= last; t++ {
		fmt.Fprintf(w, "        %s: %d\n", t, m.Field(t))
	}
	if release > 18 && m.AccessHistogramSize > 0 {
		fmt.Fprintf(w, "        AccessHistogramValues:")
		for i := 0; i < int(m.AccessHistogramSize) && i < len(m.Histogram); i++ {
			fmt.Fprintf(w, " %d", m.Histogram[i])
		}
		fmt.Fprintf(w, "\n")
	}
}

// writeSummaryComment prints the MemProfSummary YAML comment block that
// LLVM 21+ puts before the dump (MemProfSummaryBuilder with default
// thresholds: cold when the average lifetime access density is below 0.05
// per second and the average lifetime at least 1 s; hot hints are off).
func writeSummaryComment(w io.Writer, records []*Record) {
	var contexts, cold, hot int
	var maxCold, maxWarm, maxHot uint64
	seen := map[string]bool{}
	for _, r := range records {
		for _, a := range r.AllocSites {
			k := frameKey(a.CallStack)
			if seen[k] {
				continue
			}
			seen[k] = true
			contexts++
			switch allocType(&a.Info) {
			case allocCold:
				cold++
				maxCold = max(maxCold, a.Info.TotalSize)
			case allocHot:
				hot++
				maxHot = max(maxHot, a.Info.TotalSize)
			default:
				maxWarm = max(maxWarm, a.Info.TotalSize)
			}
		}
	}
	fmt.Fprintf(w, "---\n# MemProfSummary:\n#   Total contexts: %d\n#   Total cold contexts: %d\n#   Total hot contexts: %d\n", contexts, cold, hot)
	fmt.Fprintf(w, "#   Maximum cold context total size: %d\n#   Maximum warm context total size: %d\n#   Maximum hot context total size: %d\n", maxCold, maxWarm, maxHot)
}

type allocKind int

const (
	allocNotCold allocKind = iota
	allocCold
	allocHot
)

// allocType is llvm::memprof::getAllocType with default options, in float
// arithmetic as LLVM does it.
func allocType(m *MemInfoBlock) allocKind {
	density := float32(m.TotalLifetimeAccessDensity) / float32(m.AllocCount) / 100
	lifetime := float32(m.TotalLifetime) / float32(m.AllocCount)
	if density < float32(0.05) && lifetime >= 1000 {
		return allocCold
	}
	return allocNotCold
}

var metaNames = [...]string{
	MetaAllocCount:                 "AllocCount",
	MetaTotalAccessCount:           "TotalAccessCount",
	MetaMinAccessCount:             "MinAccessCount",
	MetaMaxAccessCount:             "MaxAccessCount",
	MetaTotalSize:                  "TotalSize",
	MetaMinSize:                    "MinSize",
	MetaMaxSize:                    "MaxSize",
	MetaAllocTimestamp:             "AllocTimestamp",
	MetaDeallocTimestamp:           "DeallocTimestamp",
	MetaTotalLifetime:              "TotalLifetime",
	MetaMinLifetime:                "MinLifetime",
	MetaMaxLifetime:                "MaxLifetime",
	MetaAllocCpuId:                 "AllocCpuId",
	MetaDeallocCpuId:               "DeallocCpuId",
	MetaNumMigratedCpu:             "NumMigratedCpu",
	MetaNumLifetimeOverlaps:        "NumLifetimeOverlaps",
	MetaNumSameAllocCpu:            "NumSameAllocCpu",
	MetaNumSameDeallocCpu:          "NumSameDeallocCpu",
	MetaDataTypeId:                 "DataTypeId",
	MetaTotalAccessDensity:         "TotalAccessDensity",
	MetaMinAccessDensity:           "MinAccessDensity",
	MetaMaxAccessDensity:           "MaxAccessDensity",
	MetaTotalLifetimeAccessDensity: "TotalLifetimeAccessDensity",
	MetaMinLifetimeAccessDensity:   "MinLifetimeAccessDensity",
	MetaMaxLifetimeAccessDensity:   "MaxLifetimeAccessDensity",
	MetaAccessHistogramSize:        "AccessHistogramSize",
	MetaAccessHistogram:            "AccessHistogram",
}

// String returns LLVM's field name (MIBEntryDef.inc).
func (t Meta) String() string {
	if int(t) < len(metaNames) && metaNames[t] != "" {
		return metaNames[t]
	}
	return fmt.Sprintf("Meta(%d)", uint64(t))
}

// SetField stores v into field t, truncated to the field's width (no-op
// for an unknown tag). It is the inverse of Field.
func (b *MemInfoBlock) SetField(t Meta, v uint64) {
	switch t {
	case MetaAllocCount:
		b.AllocCount = uint32(v)
	case MetaTotalAccessCount:
		b.TotalAccessCount = v
	case MetaMinAccessCount:
		b.MinAccessCount = v
	case MetaMaxAccessCount:
		b.MaxAccessCount = v
	case MetaTotalSize:
		b.TotalSize = v
	case MetaMinSize:
		b.MinSize = uint32(v)
	case MetaMaxSize:
		b.MaxSize = uint32(v)
	case MetaAllocTimestamp:
		b.AllocTimestamp = uint32(v)
	case MetaDeallocTimestamp:
		b.DeallocTimestamp = uint32(v)
	case MetaTotalLifetime:
		b.TotalLifetime = v
	case MetaMinLifetime:
		b.MinLifetime = uint32(v)
	case MetaMaxLifetime:
		b.MaxLifetime = uint32(v)
	case MetaAllocCpuId:
		b.AllocCpuId = uint32(v)
	case MetaDeallocCpuId:
		b.DeallocCpuId = uint32(v)
	case MetaNumMigratedCpu:
		b.NumMigratedCpu = uint32(v)
	case MetaNumLifetimeOverlaps:
		b.NumLifetimeOverlaps = uint32(v)
	case MetaNumSameAllocCpu:
		b.NumSameAllocCpu = uint32(v)
	case MetaNumSameDeallocCpu:
		b.NumSameDeallocCpu = uint32(v)
	case MetaDataTypeId:
		b.DataTypeId = v
	case MetaTotalAccessDensity:
		b.TotalAccessDensity = v
	case MetaMinAccessDensity:
		b.MinAccessDensity = uint32(v)
	case MetaMaxAccessDensity:
		b.MaxAccessDensity = uint32(v)
	case MetaTotalLifetimeAccessDensity:
		b.TotalLifetimeAccessDensity = v
	case MetaMinLifetimeAccessDensity:
		b.MinLifetimeAccessDensity = uint32(v)
	case MetaMaxLifetimeAccessDensity:
		b.MaxLifetimeAccessDensity = uint32(v)
	case MetaAccessHistogramSize:
		b.AccessHistogramSize = uint32(v)
	case MetaAccessHistogram:
		b.AccessHistogram = v
	}
}

// Field returns the value of field t widened to uint64 (0 for an unknown
// tag).
func (m *MemInfoBlock) Field(t Meta) uint64 {
	switch t {
	case MetaAllocCount:
		return uint64(m.AllocCount)
	case MetaTotalAccessCount:
		return m.TotalAccessCount
	case MetaMinAccessCount:
		return m.MinAccessCount
	case MetaMaxAccessCount:
		return m.MaxAccessCount
	case MetaTotalSize:
		return m.TotalSize
	case MetaMinSize:
		return uint64(m.MinSize)
	case MetaMaxSize:
		return uint64(m.MaxSize)
	case MetaAllocTimestamp:
		return uint64(m.AllocTimestamp)
	case MetaDeallocTimestamp:
		return uint64(m.DeallocTimestamp)
	case MetaTotalLifetime:
		return m.TotalLifetime
	case MetaMinLifetime:
		return uint64(m.MinLifetime)
	case MetaMaxLifetime:
		return uint64(m.MaxLifetime)
	case MetaAllocCpuId:
		return uint64(m.AllocCpuId)
	case MetaDeallocCpuId:
		return uint64(m.DeallocCpuId)
	case MetaNumMigratedCpu:
		return uint64(m.NumMigratedCpu)
	case MetaNumLifetimeOverlaps:
		return uint64(m.NumLifetimeOverlaps)
	case MetaNumSameAllocCpu:
		return uint64(m.NumSameAllocCpu)
	case MetaNumSameDeallocCpu:
		return uint64(m.NumSameDeallocCpu)
	case MetaDataTypeId:
		return m.DataTypeId
	case MetaTotalAccessDensity:
		return m.TotalAccessDensity
	case MetaMinAccessDensity:
		return uint64(m.MinAccessDensity)
	case MetaMaxAccessDensity:
		return uint64(m.MaxAccessDensity)
	case MetaTotalLifetimeAccessDensity:
		return m.TotalLifetimeAccessDensity
	case MetaMinLifetimeAccessDensity:
		return uint64(m.MinLifetimeAccessDensity)
	case MetaMaxLifetimeAccessDensity:
		return uint64(m.MaxLifetimeAccessDensity)
	case MetaAccessHistogramSize:
		return uint64(m.AccessHistogramSize)
	case MetaAccessHistogram:
		return m.AccessHistogram
	}
	return 0
}

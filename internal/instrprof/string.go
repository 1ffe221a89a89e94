package instrprof

import (
	"fmt"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// String returns a stable, human-readable dump of the file: header,
// summary shape, MemProf version, schema and every record in on-disk order.
func (f *File) String() string {
	var b strings.Builder
	h := &f.Header
	fmt.Fprintf(&b, "IndexVersion: %d\nVariant: %#x\nHashType: %d\n", h.IndexVersion(), h.Version>>32<<32, h.HashType)
	fmt.Fprintf(&b, "Offsets: hash=%#x memprof=%#x binaryids=%#x temporal=%#x vtablenames=%#x\n",
		h.HashOffset, h.MemProfOffset, h.BinaryIdOffset, h.TemporalProfTracesOffset, h.VTableNamesOffset)
	fmt.Fprintf(&b, "Summary: %d fields %v, %d cutoffs\n", len(f.Summary.Fields), f.Summary.Fields, len(f.Summary.Entries))
	fmt.Fprintf(&b, "Functions: %d\n", f.NumFunctions)
	fmt.Fprintf(&b, "BinaryIDs: %d\nVTableNames: %d bytes\n", len(f.BinaryIDs), len(f.VTableNames))
	if f.MemProfVersion < 0 {
		b.WriteString("MemProf: none\n")
		return b.String()
	}
	fmt.Fprintf(&b, "MemProf: V%d\n", f.MemProfVersion)
	names := make([]string, len(f.Schema))
	for i, m := range f.Schema {
		names[i] = m.String()
	}
	fmt.Fprintf(&b, "Schema: %s\n", strings.Join(names, " "))
	if s := f.MemProfSummary; s != nil {
		fmt.Fprintf(&b, "MemProfSummary: contexts=%d cold=%d hot=%d maxcold=%d maxwarm=%d maxhot=%d\n",
			s.NumContexts, s.NumColdContexts, s.NumHotContexts, s.MaxColdTotalSize, s.MaxWarmTotalSize, s.MaxHotTotalSize)
	}
	p := f.Profile
	fmt.Fprintf(&b, "Frames: %d\nCallStacks: %d\nRecords: %d\n", len(p.Frames), len(p.CallStacks), len(p.Records))
	writeRecords(&b, p, f.Schema)
	return b.String()
}

func frameString(fr memprof.Frame) string {
	s := fmt.Sprintf("%#016x %d:%d", fr.Function, fr.LineOffset, fr.Column)
	if fr.IsInlineFrame {
		s += " inline"
	}
	return s
}

func writeRecords(b *strings.Builder, p *memprof.Profile, schema []memprof.Meta) {
	for _, r := range p.Records {
		fmt.Fprintf(b, "Record %#016x\n", r.GUID)
		for i := range r.AllocSites {
			a := &r.AllocSites[i]
			fmt.Fprintf(b, "  Alloc %d\n", i)
			for _, fr := range a.CallStack {
				fmt.Fprintf(b, "    %s\n", frameString(fr))
			}
			b.WriteString("   ")
			for _, m := range schema {
				fmt.Fprintf(b, " %s=%d", m, a.Info.Field(m))
			}
			b.WriteString("\n")
		}
		for i, c := range r.CallSites {
			fmt.Fprintf(b, "  CallSite %d\n", i)
			for _, fr := range c.Frames {
				fmt.Fprintf(b, "    %s\n", frameString(fr))
			}
			if len(c.CalleeGUIDs) > 0 {
				fmt.Fprintf(b, "    callees %#x\n", c.CalleeGUIDs)
			}
		}
	}
}

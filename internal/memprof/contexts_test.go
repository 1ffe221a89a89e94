package memprof_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	. "github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/memprof/mibref"
)

// TestMergeContexts: with MergeContexts, the MIBs of several inputs (in
// fold order) merge into one per context, equal to mibref.Merge applied to the
// raw MIBs with the same call stack (the same PCs: the binaries are not
// PIE) in input order, histograms included; the output holds each context
// once, as one input does.
func TestMergeContexts(t *testing.T) {
	dir := memproftest.Fixtures(t)
	for _, tc := range []struct {
		name, bin string
		raws      []string
	}{
		{"app llvm22", "app-llvm22-nopie", []string{"app-llvm22-nopie-a.memprofraw", "app-llvm22-nopie-b.memprofraw", "app-llvm22-nopie-dump.memprofraw", "app-llvm22-nopie-a.memprofraw"}},
		{"app llvm19", "app-llvm19-nopie", []string{"app-llvm19-nopie-b.memprofraw", "app-llvm19-nopie-a.memprofraw", "app-llvm19-nopie-dump.memprofraw"}},
		{"hist llvm22", "hist-llvm22", []string{"hist-llvm22.memprofraw", "hist-llvm22.memprofraw", "hist-llvm22.memprofraw"}},
		{"hist llvm19", "hist-llvm19", []string{"hist-llvm19.memprofraw", "hist-llvm19.memprofraw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin, err := elfsym.Open(filepath.Join(dir, tc.bin), &elfsym.Options{DWARFOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer bin.Close()
			// The reference: raw MIBs keyed by their PC lists, without the
			// PCs that have no DWARF in the binary (libc, the memprof
			// runtime: every conversion drops them); a stack left empty
			// is dropped with its MIB.
			kept := func(pc uint64) bool {
				fr, err := bin.Symbolize(pc)
				return err == nil && len(fr) > 0 && fr[0].File != ""
			}
			ref := map[string]MemInfoBlock{}
			var raws []*RawProfile
			for _, name := range tc.raws {
				raw, err := OpenRaw(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				raws = append(raws, raw)
				for _, e := range raw.MIBs {
					pcs, _ := raw.Stack(e.StackID)
					pcs = slices.DeleteFunc(slices.Clone(pcs), func(pc uint64) bool { return !kept(pc) })
					if len(pcs) == 0 {
						continue
					}
					key := fmt.Sprint(pcs)
					if old, ok := ref[key]; ok {
						ref[key] = mibref.Merge(old, e.Info)
					} else {
						e.Info.Histogram = slices.Clone(e.Info.Histogram)
						ref[key] = e.Info
					}
				}
			}
			var want []string
			for _, m := range ref {
				want = append(want, fmt.Sprintf("%+v", m))
			}
			slices.Sort(want)

			merged := convertMerged(t, bin, raws)
			one := convertMerged(t, bin, raws[:1])
			got := contextMIBs(merged)
			if !slices.Equal(got, want) {
				t.Errorf("merged MIBs differ from the reference:\ngot  %d: %q\nwant %d: %q", len(got), got, len(want), want)
			}
			if len(slices.Compact(slices.Clone(tc.raws))) == 1 {
				// Same input again: the contexts, call sites and records
				// are those of one input.
				if merged.NumStacks() != one.NumStacks() || len(merged.AllocSites) != len(one.AllocSites) ||
					len(merged.CallSites) != len(one.CallSites) || len(merged.Records) != len(one.Records) {
					t.Errorf("merged: %d stacks, %d alloc sites, %d call sites, %d records; one input: %d, %d, %d, %d",
						merged.NumStacks(), len(merged.AllocSites), len(merged.CallSites), len(merged.Records),
						one.NumStacks(), len(one.AllocSites), len(one.CallSites), len(one.Records))
				}
			}
		})
	}
}

func convertMerged(t *testing.T, bin Symbolizer, raws []*RawProfile) *Compact {
	t.Helper()
	c, err := NewConverter(bin, ConvertOptions{Release: 22, MergeContexts: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raws {
		if err := c.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	p, err := c.Compact()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// contextMIBs lists the MIB of each distinct context (call stack) of p,
// printed, sorted. Every record's alloc site of one context shares it.
func contextMIBs(p *Compact) []string {
	byStack := map[int32]*MemInfoBlock{}
	for _, a := range p.AllocSites {
		if m, ok := byStack[a.Stack]; ok && m != a.Info {
			return []string{fmt.Sprintf("stack %d has two MIBs", a.Stack)}
		}
		byStack[a.Stack] = a.Info
	}
	var out []string
	for _, m := range byStack {
		out = append(out, fmt.Sprintf("%+v", *m))
	}
	slices.Sort(out)
	return out
}

package profmerge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// mergeProfiles is the reference of memprof.Merge (the merge of the
// expanded form the tests compare it with): it combines converted, YAML and indexed MemProf profiles:
// records with the same GUID are merged by appending alloc sites (as LLVM's
// IndexedMemProfRecord::merge does) and call sites not already present;
// records keep first-seen order. With contexts, an alloc site whose call
// stack the record has already is merged into it (MemInfoBlock.Merge, or
// MergePartial for a profile with partial states: states[i], nil if
// none) instead. One profile without states is returned unchanged unless
// first is wanted. With first, the states of the result (its first
// blocks', by call stack) are returned too.
func mergeProfiles(ps []*memprof.Profile, states []memprof.PartialStates, contexts, wantFirst bool) (*memprof.Profile, func([]memprof.Frame) memprof.PartialState) {
	if len(ps) == 1 && states[0] == nil && !wantFirst {
		return ps[0], nil
	}
	out := &memprof.Profile{}
	byGUID := map[uint64]*memprof.Record{}
	sites := map[*memprof.Record]map[string]int{} // call stack -> alloc site index
	first := map[string]memprof.PartialState{}    // call stack -> its first block's state
	for i, p := range ps {
		for _, r := range p.Records {
			m, ok := byGUID[r.GUID]
			if !ok {
				m = &memprof.Record{GUID: r.GUID}
				byGUID[r.GUID] = m
				out.Records = append(out.Records, m)
				sites[m] = map[string]int{}
			}
			for _, a := range r.AllocSites {
				if !contexts {
					m.AllocSites = append(m.AllocSites, a)
					continue
				}
				key := framesKey(a.CallStack)
				st, partial := memprof.FirstState(&a.Info), false
				if states[i] != nil {
					st, partial = states[i][memprof.StackKey(a.CallStack)], true // load checked it is there
				}
				if _, ok := first[key]; !ok {
					first[key] = st
				}
				if j, ok := sites[m][key]; ok {
					if partial {
						m.AllocSites[j].Info.MergePartial(&a.Info, st)
					} else {
						m.AllocSites[j].Info.Merge(&a.Info)
					}
					continue
				}
				sites[m][key] = len(m.AllocSites)
				a.Info.Histogram = slices.Clone(a.Info.Histogram) // Merge adds into it
				m.AllocSites = append(m.AllocSites, a)
			}
			for _, cs := range r.CallSites {
				if !hasCallSite(m.CallSites, cs) {
					m.CallSites = append(m.CallSites, cs)
				}
			}
		}
	}
	return out, func(stack []memprof.Frame) memprof.PartialState { return first[framesKey(stack)] }
}

func hasCallSite(list []memprof.CallSite, cs memprof.CallSite) bool {
	key := callSiteKey(cs)
	for _, c := range list {
		if callSiteKey(c) == key {
			return true
		}
	}
	return false
}

func callSiteKey(cs memprof.CallSite) string {
	var b strings.Builder
	b.WriteString(framesKey(cs.Frames))
	for _, g := range cs.CalleeGUIDs {
		fmt.Fprintf(&b, "%x,", g)
	}
	return b.String()
}

// framesKey is a call stack as a map key.
func framesKey(frames []memprof.Frame) string {
	var b strings.Builder
	for _, f := range frames {
		fmt.Fprintf(&b, "%x:%d:%d:%t;", f.Function, f.LineOffset, f.Column, f.IsInlineFrame)
	}
	return b.String()
}

package memprof

import (
	"github.com/rules-pgo/rules_pgo/internal/densemap"
	"github.com/rules-pgo/rules_pgo/internal/hashtab"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// idIndex maps stack ids to their index in a RawProfile's StackIDs (or a
// dump's stack ids).
type idIndex struct {
	index hashtab.Index // entry e is ids[e], hashed as itself
	ids   []uint64
	vals  []int32
}

func newIDIndex(hint int) *idIndex {
	t := &idIndex{ids: make([]uint64, 0, hint), vals: make([]int32, 0, hint)}
	t.index.Reserve(hint)
	return t
}

func (t *idIndex) probe(id uint64) hashtab.Probe {
	p := t.index.Probe(id)
	for p = p.Next(); p.Entry >= 0 && t.ids[p.Entry] != id; p = p.Next() {
	}
	return p
}

func (t *idIndex) get(id uint64) (int32, bool) {
	if p := t.probe(id); p.Entry >= 0 {
		return t.vals[p.Entry], true
	}
	return -1, false
}

// set maps id to v, replacing an earlier value.
func (t *idIndex) set(id uint64, v int32) {
	if p := t.probe(id); p.Entry >= 0 {
		t.vals[p.Entry] = v
	} else {
		t.index.Add(id, p)
		t.ids = append(t.ids, id)
		t.vals = append(t.vals, v)
	}
}

// index returns the map from stack id to StackIDs index.
func (p *RawProfile) index() *idIndex {
	if p.stackIdx == nil || p.stackIdx.index.Len() != len(p.StackIDs) {
		p.stackIdx = newIDIndex(len(p.StackIDs))
		for i, id := range p.StackIDs {
			p.stackIdx.set(id, int32(i))
		}
	}
	return p.stackIdx
}

// stackMapOrder returns the iteration order of LLVM's merged raw stack map
// (a DenseMap) as StackIDs indexes: RawMemProfReader inserts the first
// dump's stack map whole and then, for each later dump, that dump's own
// map in its iteration order, an id already present keeping its entry.
func (p *RawProfile) stackMapOrder(release llvmrelease.Release) []int32 {
	m := densemap.New(release, p.StackIDs)
	if len(p.dumpStackIDs) == 0 {
		// A profile built in memory (not read): use StackIDs.
		for i := range p.StackIDs {
			m.Insert(int32(i))
		}
		return m.Order()
	}
	idx := p.index()
	for i, ids := range p.dumpStackIDs {
		if i == 0 {
			for j := range ids { // the first dump's ids are StackIDs[:len(ids)]
				m.Insert(int32(j))
			}
			continue
		}
		for _, k := range densemap.Order(release, ids) {
			v, _ := idx.get(ids[k])
			m.Insert(v)
		}
	}
	return m.Order()
}

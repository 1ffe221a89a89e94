package profgen

import (
	"fmt"
	"testing"
)

// TestCandidateQueue checks that equal candidates leave the queue in the
// order of std::priority_queue (libstdc++'s heap): the order a
// clang++-19 program printed for the same pushes and pops.
func TestCandidateQueue(t *testing.T) {
	q := newCandidateQueue()
	var got string
	pop := func() {
		got += q.Pop().node.name + ","
	}
	for i := range 40 {
		q.Push(candidate{node: &ctxNode{name: fmt.Sprint(i)}, size: uint64(i % 3), count: uint64(i * 7 % 4), guid: uint64(i % 2)})
		if i%3 == 2 {
			pop()
		}
	}
	for q.Len() > 0 {
		pop()
	}
	const want = "0,3,6,9,12,15,18,21,24,27,30,33,36,39,1,37,13,25,17,29,5,34,10,22,38,2,14,26,19,7,31,23,35,11,28,16,4,32,20,8,"
	if got != want {
		t.Errorf("pop order\n got %s\nwant %s", got, want)
	}
}

// TestSortSCCMembers orders a three-function cycle as scc_member_iterator
// does: the maximum spanning tree's edges a→b (9) and b→c (5); c→a (1)
// is left out; Kahn's walk from a gives a, b, c, reversed.
func TestSortSCCMembers(t *testing.T) {
	a, b, c := &cgNode{name: "a"}, &cgNode{name: "b"}, &cgNode{name: "c"}
	a.edges = []cgEdge{{a, b, 9}}
	b.edges = []cgEdge{{b, c, 5}}
	c.edges = []cgEdge{{c, a, 1}}
	var got []string
	for _, n := range sortSCCMembers([]*cgNode{c, b, a}) {
		got = append(got, n.name)
	}
	if fmt.Sprint(got) != "[c b a]" {
		t.Errorf("got %v, want [c b a]", got)
	}
}

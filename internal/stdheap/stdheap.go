// Package stdheap is std::priority_queue as libstdc++ implements it
// (push_heap, pop_heap: __push_heap, __adjust_heap), so that elements the
// comparator calls equal come out in the order LLVM's tools, built with
// GCC's standard library, print them.
package stdheap

// Queue is a std::priority_queue<T, std::vector<T>, Less>: Top is an
// element no other is "greater" than by Less.
type Queue[T any] struct {
	s    []T
	less func(a, b T) bool
}

// New returns an empty queue ordered by less (the comparator's
// operator()).
func New[T any](less func(a, b T) bool) *Queue[T] { return &Queue[T]{less: less} }

// Len returns the number of elements.
func (q *Queue[T]) Len() int { return len(q.s) }

// Top returns the top element; the queue must not be empty.
func (q *Queue[T]) Top() T { return q.s[0] }

// siftUp is __push_heap: v goes into the hole, or above it while its
// parent is less than v, up to top.
func (q *Queue[T]) siftUp(hole, top int, v T) {
	s := q.s
	parent := (hole - 1) / 2
	for hole > top && q.less(s[parent], v) {
		s[hole] = s[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	s[hole] = v
}

// Push is push (push_back, push_heap).
func (q *Queue[T]) Push(v T) {
	q.s = append(q.s, v)
	q.siftUp(len(q.s)-1, 0, v)
}

// Pop is top then pop (pop_heap: __pop_heap, __adjust_heap; pop_back).
func (q *Queue[T]) Pop() T {
	s := q.s
	n := len(s)
	top := s[0]
	if n > 1 {
		v := s[n-1]
		s[n-1] = s[0]
		length := n - 1
		hole, child := 0, 0
		for child < (length-1)/2 {
			child = 2 * (child + 1)
			if q.less(s[child], s[child-1]) {
				child--
			}
			s[hole] = s[child]
			hole = child
		}
		if length&1 == 0 && child == (length-2)/2 {
			child = 2 * (child + 1)
			s[hole] = s[child-1]
			hole = child - 1
		}
		q.siftUp(hole, 0, v)
	}
	q.s = s[:n-1]
	return top
}

// Package freelist keeps recycled values for reuse. Unlike a sync.Pool it
// keeps them across garbage collections: the tools recycle large buffers,
// and memory fresh from the kernel costs a page fault per 4 KiB touched.
package freelist

import "sync"

// List holds up to Max recycled values (8 when Max is 0). The zero value
// is ready to use and safe for concurrent use.
type List[T any] struct {
	Max   int
	mu    sync.Mutex
	items []T
}

// Get returns a recycled value, or the zero value if there is none.
func (l *List[T]) Get() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	var v T
	if n := len(l.items); n > 0 {
		v, l.items = l.items[n-1], l.items[:n-1]
	}
	return v
}

// Put recycles v, or drops it when the list is full.
func (l *List[T]) Put(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	max := l.Max
	if max == 0 {
		max = 8
	}
	if len(l.items) < max {
		l.items = append(l.items, v)
	}
}

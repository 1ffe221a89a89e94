package freelist

import (
	"runtime"
	"sync"
	"testing"
)

func TestList(t *testing.T) {
	var l List[*int]
	if l.Get() != nil {
		t.Fatal("empty list returned a value")
	}
	for i := range 10 {
		v := i
		l.Put(&v)
	}
	runtime.GC() // unlike a sync.Pool, a collection keeps the values
	n := 0
	for l.Get() != nil {
		n++
	}
	if n != 8 {
		t.Errorf("kept %d values, want 8 (the default Max)", n)
	}
	l2 := List[int]{Max: 2}
	l2.Put(1)
	l2.Put(2)
	l2.Put(3)
	if a, b, c := l2.Get(), l2.Get(), l2.Get(); a != 2 || b != 1 || c != 0 {
		t.Errorf("Max 2: got %d %d %d, want 2 1 0", a, b, c)
	}
}

func TestConcurrent(t *testing.T) {
	var l List[[]byte]
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				b := l.Get()
				if b == nil {
					b = make([]byte, 16)
				}
				l.Put(b)
			}
		})
	}
	wg.Wait()
}

package storage

import "testing"

// TestSlabPointers: every valid value gets a pointer of its own that keeps
// its value across chunk boundaries; NULL is nil.
func TestSlabPointers(t *testing.T) {
	var s slab[int]
	if s.ptr(false, 1) != nil {
		t.Fatal("NULL got a pointer")
	}
	const n = 1000 // past the largest chunk, several times
	ps := make([]*int, n)
	for i := range ps {
		ps[i] = s.ptr(true, i)
	}
	seen := map[*int]bool{}
	for i, p := range ps {
		if *p != i || seen[p] {
			t.Fatalf("pointer %d: value %d, shared %v", i, *p, seen[p])
		}
		seen[p] = true
		*p = -1 // a record's field changed by its owner stays its own
		if i+1 < n && *ps[i+1] != i+1 {
			t.Fatalf("writing pointer %d changed pointer %d", i, i+1)
		}
	}
}

package storage

import (
	"strings"
	"testing"
)

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

// TestCharsStrings: every text comes back as a string of its bytes, which
// later texts, the reuse of the source buffer (pgx's, for the next row)
// and chunk boundaries leave as they are; short texts share chunks, a long
// one has its own allocation.
func TestCharsStrings(t *testing.T) {
	var c chars
	src := make([]byte, 0, maxCharsChunk)
	var got, want []string
	for i := range 3000 {
		text := strings.Repeat(string(rune('a'+i%26)), i%300)
		if i%500 == 7 {
			text = strings.Repeat("long ", maxCharsChunk/4) // beyond a quarter chunk
		}
		src = append(src[:0], text...)
		got, want = append(got, c.string(src)), append(want, text)
		for j := range src {
			src[j] = '!' // the source is pgx's buffer, overwritten by the next row
		}
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("text %d: %q, want %q", i, got[i], want[i])
		}
	}
	if s := c.string(nil); s != "" {
		t.Fatalf("nil: %q", s)
	}
	if s := c.string([]byte{}); s != "" {
		t.Fatalf("empty: %q", s)
	}
	allocs := testing.AllocsPerRun(100, func() { c.string([]byte("pending")) })
	if allocs > 0.1 {
		t.Errorf("a short text cost %.2f allocations", allocs)
	}
}

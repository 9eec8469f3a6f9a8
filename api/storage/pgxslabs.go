package storage

import "unsafe"

// slab hands out pointers to values of V carved from chunks, so the
// pointer fields of a page of records cost one allocation per chunk rather
// than one per field (the chunks double from 8 to 256 values, so one record
// holds little). A chunk lives as long as any record pointing into it: all
// of a statement's records go out in one response together.
type slab[V any] struct {
	free []V
	next int
}

// ptr returns a pointer to a copy of v, or nil when !valid (NULL).
func (s *slab[V]) ptr(valid bool, v V) *V {
	if !valid {
		return nil
	}
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, 8), 256)
		s.free = make([]V, s.next)
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return p
}

// chars hands out strings whose bytes are carved from chunks, as slab
// hands out pointers: the text columns of a page of records cost one
// allocation per chunk rather than one per value (a 1000-item manifest
// has about 3,000 texts). The chunks double from 256 bytes to 16 KiB; a
// text of more than a quarter of that has an allocation of its own. A
// chunk's bytes are never written again once a string holds them, and a
// chunk lives as long as any string in it: all of a statement's records go
// out in one response together.
type chars struct {
	free []byte
	next int
}

const maxCharsChunk = 16 << 10

// string returns a string of b's bytes.
func (s *chars) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > len(s.free) {
		if len(b) > maxCharsChunk/4 {
			return string(b)
		}
		s.next = min(max(2*s.next, 256), maxCharsChunk)
		s.free = make([]byte, max(s.next, len(b)))
	}
	p := s.free[:len(b):len(b)]
	copy(p, b)
	s.free = s.free[len(b):]
	return unsafe.String(&p[0], len(p))
}

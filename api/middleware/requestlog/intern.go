package requestlog

import (
	"net/netip"
	"strings"
	"sync"
)

// A record outlives its request, so its strings cannot point into Fiber's
// buffers; copied for every request, they were most of the log's
// allocations (and so of the garbage collector's work it caused). The
// fields below take few distinct values in practice: a client sends the same
// User-Agent from the same few addresses, and the methods are a handful.
// Each distinct value is copied once and shared by every record holding it.

// maxInterned bounds the distinct values an interner keeps, and
// maxInternedLen the length of a text it keeps (about 1 MiB in all); past
// either a value is copied for its record, as before, so a client that
// varies its User-Agent on every request, or sends a long one, grows
// nothing.
const (
	maxInterned    = 4096
	maxInternedLen = 256
)

// textInterner shares one *string per distinct text.
type textInterner struct {
	mu sync.Mutex
	m  map[string]*string
}

// of returns the shared copy of b, or a fresh one when the interner is
// full or b is long.
func (in *textInterner) of(b []byte) *string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if p, ok := in.m[string(b)]; ok { // no allocation: the compiler looks up b's bytes
		return p
	}
	return in.keep(string(b))
}

// ofString is of for a string: a route template, which the router keeps.
func (in *textInterner) ofString(s string) *string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if p, ok := in.m[s]; ok {
		return p
	}
	return in.keep(s)
}

// keep returns a pointer to s, kept for the next caller while the bounds
// allow (in.mu held).
func (in *textInterner) keep(s string) *string {
	if in.m == nil {
		in.m = map[string]*string{}
	}
	if len(in.m) < maxInterned && len(s) <= maxInternedLen {
		in.m[s] = &s
	}
	return &s
}

// addrInterner shares one *string per distinct address, its text.
type addrInterner struct {
	mu sync.Mutex
	m  map[netip.Addr]*string
}

// of returns the shared text of a, or a fresh one when the interner is full.
func (in *addrInterner) of(a netip.Addr) *string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if p, ok := in.m[a]; ok {
		return p
	}
	s := a.String()
	if in.m == nil {
		in.m = map[netip.Addr]*string{}
	}
	if len(in.m) < maxInterned {
		in.m[a] = &s
	}
	return &s
}

// methodOf returns the request method as a constant for the standard
// methods, a copy for any other.
func methodOf(m string) string {
	for _, known := range [...]string{"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"} {
		if m == known {
			return known
		}
	}
	return strings.Clone(m)
}

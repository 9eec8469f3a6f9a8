package requestlog

import (
	"fmt"
	"net/netip"
	"testing"
	"unsafe"
)

func TestTextInternerSharesUpToItsBound(t *testing.T) {
	var in textInterner
	buf := []byte("curl/8.5.0")
	a := in.of(buf)
	copy(buf, "XXXX") // the caller's buffer is reused by the next request
	if *a != "curl/8.5.0" {
		t.Fatalf("interned %q changed with its source buffer", *a)
	}
	if b := in.of([]byte("curl/8.5.0")); b != a {
		t.Fatal("the same text was not shared")
	}
	if b := in.ofString("curl/8.5.0"); b != a {
		t.Fatal("ofString did not share the text of")
	}
	long := make([]byte, maxInternedLen+1)
	//lint:ignore SA4000 deliberate: two separate calls must return distinct pointers for a text past maxInternedLen (not interned)
	if in.of(long) == in.of(long) || len(in.m) != 1 {
		t.Fatal("a text longer than maxInternedLen was kept")
	}
	for i := range maxInterned + 10 {
		in.of(fmt.Appendf(nil, "agent-%d", i))
	}
	if len(in.m) != maxInterned {
		t.Fatalf("interner holds %d values, want its bound %d", len(in.m), maxInterned)
	}
	over := []byte("one more agent")
	x, y := in.of(over), in.of(over)
	if *x != "one more agent" || *y != "one more agent" || x == y {
		t.Fatalf("past the bound: %q, %q, shared %v; want fresh copies", *x, *y, x == y)
	}
}

func TestAddrInterner(t *testing.T) {
	var in addrInterner
	cases := []struct{ addr, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"2001:db8::1", "2001:db8::1"},
		{"::ffff:10.0.0.1", "::ffff:10.0.0.1"},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		p := in.of(a)
		if *p != c.want || in.of(a) != p {
			t.Errorf("of(%s) = %q (shared %v), want %q shared", c.addr, *p, in.of(a) == p, c.want)
		}
	}
}

func TestMethodOf(t *testing.T) {
	for _, m := range []string{"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS", "PROPFIND", ""} {
		buf := []byte(m)
		src := unsafe.String(unsafe.SliceData(buf), len(buf)) // a string over a reused buffer, as Fiber's can be
		got := methodOf(src)
		copy(buf, "zzzzzzzz")
		if got != m {
			t.Errorf("methodOf(%q) = %q after its buffer was reused", m, got)
		}
	}
}

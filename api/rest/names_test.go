package rest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
)

func TestRepeatedName(t *testing.T) {
	tests := []struct {
		name, body string
		at         string // "" when no name repeats
	}{
		{"distinct names", `{"a":1,"b":2}`, ""},
		{"top level", `{"name":"a","name":"b"}`, "/name"},
		{"same value twice", `{"name":"a","name":"a"}`, "/name"},
		{"an escape spells the same name", `{"name":"a","n\u0061me":"b"}`, "/n\u0061me"},
		{"case differs: two names", `{"name":"a","Name":"b"}`, ""},
		{"in an array's object", `{"line_items":[{"quantity":1},{"quantity":1,"quantity":2}]}`, "/line_items/1/quantity"},
		{"one name in sibling objects", `{"a":{"x":1},"b":{"x":1}}`, ""},
		{"nested object", `{"a":{"b":{"c":1,"c":2}}}`, "/a/b/c"},
		{"the first of several", `{"b":1,"a":1,"b":2,"a":2}`, "/b"},
		{"a name holding a slash", `{"a/b":1,"a/b":2}`, "/a~1b"},
		{"not an object", `[{"a":1,"a":2}]`, "/0/a"},
		{"a scalar", `"text"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, ok := repeatedName([]byte(tt.body))
			if ok != (tt.at != "") || string(at) != tt.at {
				t.Fatalf("repeatedName = %q, %v; want %q", at, ok, tt.at)
			}
			if faithful := DecodesFaithfully([]byte(tt.body)); faithful == ok {
				t.Fatalf("DecodesFaithfully = %v, want %v", faithful, !ok)
			}
		})
	}
}

func TestParseObjectRefusesARepeatedName(t *testing.T) {
	tests := []struct{ body, message string }{
		{`{"name":"a","name":"b"}`, `the request body gives the name "name" more than once in the top-level object; each name may appear once in an object`},
		{`{"title":"q","line_items":[{"quantity":1,"quantity":2}]}`, `the request body gives the name "quantity" more than once in the object at /line_items/0; each name may appear once in an object`},
	}
	for _, tt := range tests {
		_, err := ParseObject([]byte(tt.body))
		e := errs.As(err)
		if e == nil || e.Code != errs.MalformedJSON || e.Message != tt.message {
			t.Errorf("ParseObject(%s) = %v, want malformed_json %q", tt.body, err, tt.message)
		}
	}
}

// BenchmarkParseObject: what the repeated-name check adds to reading a
// typical body and a body of 1 MiB (docs/decisions.md).
func BenchmarkParseObject(b *testing.B) {
	small := []byte(`{"title":"Spring gala","client_id":"7d0c1c1e-5d43-4b53-9d2c-4f7a3bb8d8a1","notes":"Load in at 7","line_items":[{"description":"Truss","quantity":4,"unit_price":"120.00"}]}`)
	var big bytes.Buffer
	big.WriteString(`{"title":"q","line_items":[`)
	for i := 0; big.Len() < 1<<20-200; i++ {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"description":"item %d","quantity":%d,"unit_price":"12.50"}`, i, i%9+1)
	}
	big.WriteString(`]}`)
	for _, body := range []struct {
		name string
		b    []byte
	}{{"small", small}, {"1MiB", big.Bytes()}} {
		b.Run(body.name+"/check", func(b *testing.B) {
			b.SetBytes(int64(len(body.b)))
			for b.Loop() {
				if _, ok := repeatedName(body.b); ok {
					b.Fatal("repeated")
				}
			}
		})
		b.Run(body.name+"/parse", func(b *testing.B) {
			b.SetBytes(int64(len(body.b)))
			for b.Loop() {
				if _, err := ParseObject(body.b); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodesFaithfullyRefusesTooManyMembers: a body with an object of
// more than MaxMembers members, at any depth, is not decoded (the
// Idempotency-Key fingerprint takes its bytes, and ParseObject refuses
// it), so that no one reads its names: a 1 MiB body of 110,000 names cost
// the keyed write's fingerprint 0.46 s and 44 MB before the handler's 400.
func TestDecodesFaithfullyRefusesTooManyMembers(t *testing.T) {
	object := func(n int) string {
		var b bytes.Buffer
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"f%d":0`, i)
		}
		b.WriteByte('}')
		return b.String()
	}
	for _, tt := range []struct {
		name     string
		body     string
		faithful bool
	}{
		{"at the bound", object(MaxMembers), true},
		{"over it", object(MaxMembers + 1), false},
		{"over it in a line item", `{"line_items":[` + object(MaxMembers+1) + `]}`, false},
	} {
		if got := DecodesFaithfully([]byte(tt.body)); got != tt.faithful {
			t.Errorf("%s: DecodesFaithfully = %v, want %v", tt.name, got, tt.faithful)
		}
	}
}

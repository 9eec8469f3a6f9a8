package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eventapi/eventapi/platform/errs"
)

// FuzzParseObject: whatever the bytes, a body is either refused with the
// documented code (400 malformed_json, or 422 validation_error for JSON
// that is not an object) or read as an object that encoding/json reads
// faithfully, and each getter answers a value or an issue, never a panic.
// The seeds run with every `go test`; `go test -run '^$' -fuzz
// FuzzParseObject -fuzztime 200000x ./api/rest/` explores further (about
// 1,000 inputs a second here). scripts/checks/fuzz.sh does not run it: the
// fuzzing build instruments this package's dependencies (Fiber, bun), which
// takes minutes on a cold build cache.
func FuzzParseObject(f *testing.F) {
	for _, seed := range []string{
		`{"name":"Truss","stock_quantity":4,"unit_price":12.5,"is_active":true}`,
		`{"name":"a","name":"b"}`, `{"a":{"b":1,"b":2}}`, `{"n\u0061me":1,"name":2}`,
		`{"name":"Cafe\u0301"}`, `{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `[1]`, `"x"`, ``,
		`{"line_items":[{"quantity":1.0,"unit_price":"1"}]}`, `{"start":"2026-01-01T00:00:00Z","date":"2026-01-01"}`,
		`{"ids":["7d0c1c1e-5d43-4b53-9d2c-4f7a3bb8d8a1"],"n":1e400,"m":-0}`,
	} {
		f.Add([]byte(seed))
	}
	rule := Rule{MaxLen: 20, MaxItems: 3, Min: Bound(0), Max: Bound(1e9)}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseObject(body)
		// A body with an object over MaxMembers is refused for that first,
		// whether a name repeats or not.
		if repeated, ok := namesRepeat(body); ok && !objectOver(body, MaxMembers) && repeated != (err != nil && strings.Contains(err.Error(), "more than once")) {
			t.Fatalf("ParseObject(%q) = %v, but a name repeats: %v", body, err, repeated)
		}
		if err != nil {
			e := errs.As(err)
			if e == nil || (e.Code != errs.MalformedJSON && e.Code != errs.Validation) {
				t.Fatalf("ParseObject(%q) = %v, want malformed_json or validation_error", body, err)
			}
			if e.Code == errs.MalformedJSON && DecodesFaithfully(body) && !objectOver(body, MaxMembers) {
				t.Fatalf("ParseObject(%q) refused as malformed a body DecodesFaithfully reads: %v", body, err)
			}
			return
		}
		if !DecodesFaithfully(body) || !utf8.Valid(body) {
			t.Fatalf("ParseObject(%q) read a body DecodesFaithfully refuses", body)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("ParseObject(%q) read a body that is not an object: %v", body, err)
		}
		for _, name := range in.Keys() {
			if s := in.String(name, rule); s.Set && !s.Null && !utf8.ValidString(s.Value) {
				t.Fatalf("String(%q) = %q, not UTF-8", name, s.Value)
			}
			in.Int(name, rule)
			in.Number(name, rule)
			in.Money(name, rule)
			in.Bool(name, rule)
			in.UUID(name, rule)
			in.DateTime(name, rule)
			in.Date(name, rule)
			in.StringList(name, rule)
		}
		if err := in.Err(); err != nil && !errs.Is(err, errs.Validation) {
			t.Fatalf("issues of %q: %v, want validation_error", body, err)
		}
	})
}

// namesRepeat is an oracle for repeatedName that shares none of its code:
// encoding/json's token reader, whose names come decoded, with one set of
// names per open object. ok is false when the reader cannot judge the body
// (not valid JSON, or text the decoder would change: those are refused
// before names are looked at).
func namesRepeat(body []byte) (repeated, ok bool) {
	if !json.Valid(body) || !utf8.Valid(body) || loneSurrogate(body) {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		object bool
		names  map[string]bool
		key    bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false, true
		}
		if err != nil {
			return false, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				if top != nil && top.object {
					top.key = true // the object or array was a member's value
				}
				stack = append(stack, &frame{object: d == '{', names: map[string]bool{}, key: d == '{'})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].key = true
				}
			}
			continue
		}
		if top == nil || !top.object {
			continue
		}
		if top.key {
			name, _ := tok.(string)
			if top.names[name] {
				return true, true
			}
			top.names[name] = true
			top.key = false
		} else {
			top.key = true // a scalar value: a name comes next
		}
	}
}

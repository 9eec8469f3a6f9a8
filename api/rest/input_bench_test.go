package rest

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
)

// maxBody is the body limit in front of every handler (1 MiB, docs/edge.md).
const maxBody = 1 << 20

// manyNamesBody is a JSON object of at most n distinct short member names,
// as many as fit in size bytes ({"n0":0,"n1":0,…}: about 115,000 in 1 MiB).
func manyNamesBody(size, n int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < n; i++ {
		m := `"n` + strconv.FormatInt(int64(i), 36) + `":0`
		if b.Len()+len(m)+2 > size {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// oneMemberBody is a JSON object of size bytes with a single member.
func oneMemberBody(size int) []byte {
	return []byte(`{"notes":"` + strings.Repeat("x", size-len(`{"notes":""}`)) + `"}`)
}

// linesBody is {"line_items":[…]} of as many line objects of perLine
// distinct names each as fit in size bytes: the names of a body spread
// over the objects a nested decoder reads one by one.
func linesBody(size, perLine int) []byte {
	var line strings.Builder
	line.WriteByte('{')
	for i := range perLine {
		if i > 0 {
			line.WriteByte(',')
		}
		line.WriteString(`"n` + strconv.FormatInt(int64(i), 36) + `":0`)
	}
	line.WriteByte('}')
	var b strings.Builder
	b.WriteString(`{"line_items":[`)
	for i := 0; b.Len()+line.Len()+3 <= size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(line.String())
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// decodeAll reads body as a handler does: ParseObject, one field, Err,
// and the ignored_fields warning of a lenient body. Nested objects under
// line_items are each read as api/documents reads a line (ParseObject of
// the element, Err, Ignored), their names noted on the outer body.
func decodeAll(body []byte, lenient bool) error {
	in, err := ParseObject(body)
	if err != nil {
		return err
	}
	in.Lenient(lenient)
	in.String("notes", Rule{MaxLen: maxBody, MultiLine: true})
	if raw, ok := in.Raw("line_items"); ok {
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err == nil {
			for i, e := range elems {
				li, err := ParseObject(e)
				if err != nil {
					return err
				}
				li.Lenient(lenient)
				prefix := "line_items[" + strconv.Itoa(i) + "]."
				for _, is := range errs.Issues(li.Err()) {
					in.Issue(prefix+is.Field, is.Issue)
				}
				for _, f := range li.Ignored() {
					in.NoteIgnored(prefix + f)
				}
			}
		}
	}
	if err := in.Err(); err != nil {
		return err
	}
	_ = IgnoredWarnings(in)
	return nil
}

// BenchmarkParseManyNames: the cost of a body's member names (the
// allocations and time of 1 MiB of distinct names against 1 MiB of one
// member), strict (POST: one issue each) and lenient (PATCH: ignored).
func BenchmarkParseManyNames(b *testing.B) {
	bodies := []struct {
		name string
		body []byte
	}{
		{"one_member_1MiB", oneMemberBody(maxBody)},
		{"names_1MiB", manyNamesBody(maxBody, maxBody)},
		{"names_at_bound", manyNamesBody(maxBody, MaxMembers)},
		{"lines_at_bound_1MiB", linesBody(maxBody, MaxMembers)},
	}
	for _, tt := range bodies {
		for _, lenient := range []bool{false, true} {
			mode := "strict"
			if lenient {
				mode = "lenient"
			}
			b.Run(tt.name+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(tt.body)))
				for b.Loop() {
					_ = decodeAll(tt.body, lenient)
				}
			})
		}
	}
}

package etag

import (
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

func TestMatches(t *testing.T) {
	tag := Of([]byte(`{"data":{}}`))
	strong := strings.TrimPrefix(tag, "W/")
	tests := []struct {
		ifNoneMatch string
		want        bool
	}{
		{"", false},
		{tag, true},
		{strong, true}, // weak comparison: the strong form names it too
		{"*", true},
		{`"other", ` + tag, true},
		{`"other",` + strong + `  `, true},
		{`"other"`, false},
		{`W/"other", W/""`, false},
		{tag[:len(tag)-1], false}, // unterminated
		{",,", false},
	}
	for _, tt := range tests {
		if got := Matches(tt.ifNoneMatch, tag); got != tt.want {
			t.Errorf("Matches(%q) = %v, want %v", tt.ifNoneMatch, got, tt.want)
		}
	}
}

func TestOf(t *testing.T) {
	a, b := Of([]byte("one body")), Of([]byte("another body"))
	if a == b || a != Of([]byte("one body")) {
		t.Fatalf("Of: %s, %s: want equal bodies to share a tag and others not", a, b)
	}
	if !strings.HasPrefix(a, `W/"`) || !strings.HasSuffix(a, `"`) || len(a) != len(`W/""`)+16 {
		t.Fatalf("Of = %s, want W/ and 16 hex digits in quotes", a)
	}
}

// BenchmarkOf: the tag of a record's answer (about 600 bytes) and of a
// 1000-item manifest (about 600 KB).
func BenchmarkOf(b *testing.B) {
	for _, size := range []int{600, 600 << 10} {
		body := []byte(strings.Repeat(`{"id":"0b6c…","name":"K2"},`, size/27+1))[:size]
		b.Run(map[int]string{600: "record", 600 << 10: "manifest"}[size], func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				_ = Of(body)
			}
		})
	}
}

func TestRefusedCondition(t *testing.T) {
	tests := []struct {
		name    string
		headers [][2]string
		want    error
	}{
		{"none", nil, nil},
		{"a tag", [][2]string{{"If-Match", `W/"abc"`}}, errIfMatch},
		{"a strong tag", [][2]string{{"If-Match", `"abc"`}}, errIfMatch},
		{"a star", [][2]string{{"If-Match", "*"}}, nil},
		{"a star and a tag in one line", [][2]string{{"If-Match", `*, "x"`}}, errIfMatch},
		{"an empty line", [][2]string{{"If-Match", "  "}}, nil},
		{"a tag in the second line", [][2]string{{"If-Match", "*"}, {"If-Match", `"x"`}}, errIfMatch},
		{"a tag after an empty line", [][2]string{{"If-Match", ""}, {"If-Match", `"x"`}}, errIfMatch},
		{"a date", [][2]string{{"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}}, errIfUnmodifiedSince},
		{"a date beside a star", [][2]string{{"If-Match", "*"}, {"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}}, nil},
		{"a date beside an empty If-Match", [][2]string{{"If-Match", ""}, {"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}}, errIfUnmodifiedSince},
		{"an empty date", [][2]string{{"If-Unmodified-Since", " "}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h fasthttp.RequestHeader
			for _, kv := range tt.headers {
				h.Add(kv[0], kv[1])
			}
			if got := refusedCondition(&h); got != tt.want {
				t.Fatalf("refusedCondition = %v, want %v", got, tt.want)
			}
		})
	}
}

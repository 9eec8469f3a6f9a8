package etag

import (
	"strings"
	"testing"
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

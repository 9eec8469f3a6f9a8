package requestlog

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStorable(t *testing.T) {
	cases := []struct {
		name, in string
		max      int
		want     string
	}{
		{name: "plain", in: "curl/8.5", max: 255, want: "curl/8.5"},
		{name: "invalid byte", in: "agent\xff", max: 255, want: "agent\uFFFD"},
		{name: "run of invalid bytes", in: "a\xff\xfeb", max: 255, want: "a\uFFFDb"},
		{name: "NUL", in: "a\x00b", max: 255, want: "a\uFFFDb"},
		{name: "both", in: "/x/\xff\x00y", max: 255, want: "/x/\uFFFD\uFFFDy"},
		{name: "long", in: strings.Repeat("a", 300), max: 255, want: strings.Repeat("a", 255)},
		{name: "cut on a rune boundary", in: "ab\u00e9", max: 3, want: "ab"},
		{name: "replacement counts toward the bound", in: "ab\xff", max: 4, want: "ab"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := storable(c.in, c.max)
			if got != c.want || !utf8.ValidString(got) || strings.IndexByte(got, 0) >= 0 || len(got) > c.max {
				t.Fatalf("storable(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
			}
		})
	}
}

// TestNormalizeMakesEveryTextFieldStorable covers the optional fields too.
func TestNormalizeMakesEveryTextFieldStorable(t *testing.T) {
	bad := "x\xff\x00"
	ptr := func() *string { s := bad; return &s }
	r := Record{RequestID: bad, Method: bad, Path: bad, APIVersion: bad, UserAgent: ptr(), IdempotencyKey: ptr(),
		Route: ptr(), ErrorCode: ptr(), KeyPrefix: ptr(), IP: ptr()}
	r.Normalize()
	for name, s := range map[string]string{"request_id": r.RequestID, "method": r.Method, "path": r.Path,
		"api_version": r.APIVersion, "user_agent": *r.UserAgent, "idempotency_key": *r.IdempotencyKey,
		"route": *r.Route, "error_code": *r.ErrorCode, "key_prefix": *r.KeyPrefix, "ip": *r.IP} {
		if s != "x\uFFFD\uFFFD" {
			t.Errorf("%s = %q", name, s)
		}
	}
}

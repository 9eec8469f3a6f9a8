package errs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEcho: short text is repeated as it is; long text is cut to at most
// MaxEcho bytes on a rune boundary and marked with "…".
func TestEcho(t *testing.T) {
	long := strings.Repeat("a", 300)
	runes := strings.Repeat("é", 100) // 200 bytes, two per rune
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"short", "charset", "charset"},
		{"exactly the bound", long[:MaxEcho], long[:MaxEcho]},
		{"one byte over", long[:MaxEcho+1], long[:MaxEcho-3] + "…"},
		{"long", long, long[:MaxEcho-3] + "…"},
		{"two-byte runes cut between runes", runes, strings.Repeat("é", 62) + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Echo(c.in)
			if got != c.want {
				t.Fatalf("Echo(%d bytes) = %q (%d bytes), want %q", len(c.in), got, len(got), c.want)
			}
			if len(got) > MaxEcho || !utf8.ValidString(got) {
				t.Fatalf("Echo(%d bytes) gave %d bytes, valid UTF-8 %v", len(c.in), len(got), utf8.ValidString(got))
			}
		})
	}
}

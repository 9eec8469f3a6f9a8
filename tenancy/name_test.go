package tenancy

import (
	"strings"
	"testing"
)

func TestCleanName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"  Acme  ", "Acme", true},
		{strings.Repeat("é", 200), strings.Repeat("é", 200), true}, // 400 bytes, 200 characters
		{strings.Repeat("é", 201), "", false},
		{strings.Repeat("n", 200), strings.Repeat("n", 200), true},
		{"   ", "", false},
		{"", "", false},
		{"Acme\xff", "", false},
		{"Ac\x00me", "", false},
		{"Ac\nme", "", false},
		{"Ac\u200bme", "Ac\u200bme", true},
	} {
		got, err := cleanName(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("cleanName(%.12q…) = %.12q, %v; want %.12q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

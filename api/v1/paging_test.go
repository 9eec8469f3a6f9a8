package v1

import "testing"

// TestPositiveInt: page and limit are plain decimal digits in 1..max, leading
// zeros allowed however many there are; anything else is refused.
func TestPositiveInt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want int
		ok   bool
	}{
		{"1", 100, 1, true},
		{"100", 100, 100, true},
		{"050", 100, 50, true},
		{"0000000000000000000050", 100, 50, true},
		{"000000000000000000000000001", maxPage, 1, true},
		{"2147483647", maxPage, maxPage, true},
		{"2147483648", maxPage, 0, false},
		{"101", 100, 0, false},
		{"0", 100, 0, false},
		{"0000", 100, 0, false},
		{"", 100, 0, false},
		{"-1", 100, 0, false},
		{"+2", 100, 0, false},
		{"1.5", 100, 0, false},
		{"1e2", 100, 0, false},
		{"0x10", 100, 0, false},
		{"１", 100, 0, false}, // a full-width digit
		{"99999999999999999999", maxPage, 0, false},
		{"999999999999999999999999", maxPage, 0, false},
	} {
		got, ok := positiveInt(tt.in, tt.max)
		if got != tt.want || ok != tt.ok {
			t.Errorf("positiveInt(%q, %d) = %d, %v; want %d, %v", tt.in, tt.max, got, ok, tt.want, tt.ok)
		}
	}
}

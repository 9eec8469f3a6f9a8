package money

import "testing"

func TestInteger(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"5", 5, true},
		{"5.0", 5, true},
		{"5.000", 5, true},
		{"5e0", 5, true},
		{"50e-1", 5, true},
		{"0.5e1", 5, true},
		{"-3", -3, true},
		{"-0.0", 0, true},
		{"0", 0, true},
		{"1e3", 1000, true},
		{"2147483647", 2147483647, true},
		{"999999999999999999", 999999999999999999, true},
		{"1e17", 100000000000000000, true},
		{"5.5", 0, false},
		{"5.0000000000000001", 0, false},
		{"1e-1", 0, false},
		{"1e18", 0, false},
		{"1000000000000000000", 0, false},
		{"1e400", 0, false},
		{"1e-400", 0, false},
		{`"5"`, 0, false},
		{"true", 0, false},
		{"", 0, false},
		{"5.", 5, true}, // not JSON, which the decoder refuses first; read as its value
	} {
		got, ok := Integer(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Integer(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

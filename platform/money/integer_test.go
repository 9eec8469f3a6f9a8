package money

import "testing"

func TestInteger(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  error
	}{
		{"5", 5, nil},
		{"5.0", 5, nil},
		{"5.000", 5, nil},
		{"5e0", 5, nil},
		{"50e-1", 5, nil},
		{"0.5e1", 5, nil},
		{"-3", -3, nil},
		{"-1e18", 0, ErrIntegerRange},
		{"-0.0", 0, nil},
		{"0", 0, nil},
		{"1e3", 1000, nil},
		{"2147483647", 2147483647, nil},
		{"999999999999999999", 999999999999999999, nil},
		{"1e17", 100000000000000000, nil},
		{"5.5", 0, ErrNotInteger},
		{"5.0000000000000001", 0, ErrNotInteger},
		{"1e-1", 0, ErrNotInteger},
		{"1e18", 0, ErrIntegerRange},
		{"1000000000000000000", 0, ErrIntegerRange},
		{"1e400", 0, ErrIntegerRange},
		{"1e-400", 0, ErrNotInteger},
		{`"5"`, 0, ErrNotInteger},
		{"true", 0, ErrNotInteger},
		{"", 0, ErrNotInteger},
		{"5.", 5, nil}, // not JSON, which the decoder refuses first; read as its value
	} {
		got, err := Integer(c.in)
		if got != c.want || err != c.err {
			t.Errorf("Integer(%q) = %d, %v; want %d, %v", c.in, got, err, c.want, c.err)
		}
	}
}

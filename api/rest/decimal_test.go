package rest

import (
	"math"
	"strings"
	"testing"
)

func TestExactCmp(t *testing.T) {
	for _, tc := range []struct {
		lit   string
		bound float64
		want  int
	}{
		{"1000000000", 1e9, 0},
		{"1e9", 1e9, 0},
		{"1E+9", 1e9, 0},
		{"1000000000.000", 1e9, 0},
		{"1000000000.0000000001", 1e9, 1},
		{"999999999.99999999999", 1e9, -1},
		{"10000000000000000001e-10", 1e9, 1},
		{"0.10000000000000000001e10", 1e9, 1},
		{"00001000000000", 1e9, 0},
		{"0.1", 0.1, 0},
		{"0.10000000000000000001", 0.1, 1},
		{"-5", -5, 0},
		{"-5.0000000000000000001", -5, -1},
		{"-4.9999999999999999999", -5, 1},
		{"0", 0, 0},
		{"-0.0", 0, 0},
		{"0e99999999999999999999", 0, 0},
		{"1e-400", 0, 1},
		{"-1e-400", 0, -1},
		{"5", -5, 1},
		{"-5", 5, -1},
		{"12", 9, 1},
		{"9", 12, -1},
	} {
		got, ok := exactCmp(tc.lit, tc.bound)
		if !ok || got != tc.want {
			t.Errorf("exactCmp(%s, %v) = %d, %v; want %d", tc.lit, tc.bound, got, ok, tc.want)
		}
	}
	for _, lit := range []string{"1e99999999999999999999", "abc", "1.2.3"} {
		if _, ok := exactCmp(lit, 1); ok {
			t.Errorf("exactCmp(%s) read it", lit)
		}
	}
}

func TestReadNumber(t *testing.T) {
	zeros := func(n int) string { return strings.Repeat("0", n) }
	for _, tc := range []struct {
		lit  string
		want float64
	}{
		{"150", 150},
		{"-2.5e3", -2500},
		{"2" + zeros(810) + "e-801", 2e9},
		{"150" + zeros(900) + "e-900", 150},
		{"5" + zeros(5000) + "e-5000", 5},
		{"-5" + zeros(5000) + "e-5000", -5},
		{"0." + zeros(900) + "1e901", 1},
		{"1" + zeros(900), math.Inf(1)},
		{"-1" + zeros(900), math.Inf(-1)},
		{"0." + zeros(900) + "1", 0},
		{"1." + strings.Repeat("1", 1000), 1.1111111111111112},
		{zeros(1) + "." + zeros(800), 0},
	} {
		got, err := readNumber([]byte(tc.lit))
		if err != nil || got != tc.want {
			t.Errorf("readNumber(%.20s… %d chars) = %v, %v; want %v", tc.lit, len(tc.lit), got, err, tc.want)
		}
	}
	if _, err := readNumber([]byte(`"` + zeros(800) + `"`)); err == nil {
		t.Error("readNumber read a string as a number")
	}
}

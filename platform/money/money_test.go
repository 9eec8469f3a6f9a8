package money

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Amount
		err  error
	}{
		{"0", 0, nil}, {"12.5", 1250, nil}, {"12.50", 1250, nil}, {"0.01", 1, nil}, {"1e2", 10000, nil},
		{"0.1", 10, nil}, {"9999999999.99", Max, nil},
		{"1.005", 0, ErrPrecision}, {"-1", 0, ErrRange}, {"10000000000", 0, ErrRange}, {"abc", 0, ErrRange},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if got != tt.want || err != tt.err {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestJSONRoundTripIsExact(t *testing.T) {
	var a Amount
	if err := json.Unmarshal([]byte("0.1"), &a); err != nil {
		t.Fatal(err)
	}
	sum := a.Mul(3)
	b, _ := json.Marshal(sum)
	if string(b) != "0.30" {
		t.Fatalf("0.1*3 = %s", b)
	}
	if err := json.Unmarshal([]byte(`"1.00"`), &a); err == nil {
		t.Fatal("string must be refused")
	}
}

func TestScan(t *testing.T) {
	var a Amount
	cases := []struct {
		in   any
		want Amount
	}{{"12.34", 1234}, {[]byte("0.10"), 10}, {int64(3), 300}, {nil, 0}}
	for _, c := range cases {
		if err := a.Scan(c.in); err != nil || a != c.want {
			t.Errorf("Scan(%v) = %v, %v", c.in, a, err)
		}
	}
}

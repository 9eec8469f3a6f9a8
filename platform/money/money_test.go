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

// TestParseFastPathMatchesRat checks the fixed-point reader against the exact
// rational one on every shape of plain decimal text.
func TestParseFastPathMatchesRat(t *testing.T) {
	for _, in := range []string{
		"0", "-0", "7", "12.5", "12.50", "12.500", "12.501", "0.01", "0.001", "0.10",
		"9999999999.99", "9999999999.991", "10000000000", "10000000000.00", "-1", "-0.00",
		"1234567890123", "00012.30", "5.", "5.x", "-", "",
	} {
		t.Run(in, func(t *testing.T) {
			got, gotErr := Parse(in)
			want, wantErr := parseRat(in)
			if got != want || gotErr != wantErr {
				t.Fatalf("Parse(%q) = %v, %v; exact path says %v, %v", in, got, gotErr, want, wantErr)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "12.34", "9999999999.99", "0.001", "-5.5", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, gotErr := Parse(in)
		want, wantErr := parseRat(in)
		if got != want || gotErr != wantErr {
			t.Fatalf("Parse(%q) = %v, %v; exact path says %v, %v", in, got, gotErr, want, wantErr)
		}
	})
}

func TestScanRounding(t *testing.T) {
	cases := []struct {
		in   string
		want Amount
	}{{"1.234", 123}, {"1.235", 124}, {"-1.235", -124}, {"12", 1200}, {"0.5", 50}, {"1e2", 10000}}
	for _, c := range cases {
		var a Amount
		if err := a.Scan([]byte(c.in)); err != nil || a != c.want {
			t.Errorf("Scan(%q) = %v, %v; want %v", c.in, a, err, c.want)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	src := []byte("1234.56")
	var a Amount
	for b.Loop() {
		_ = a.Scan(src)
	}
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		_, _ = Parse("1234.56")
	}
}

// BenchmarkParseRat is the exact rational path alone: the baseline that
// BenchmarkParse is compared with.
func BenchmarkParseRat(b *testing.B) {
	for b.Loop() {
		_, _ = parseRat("1234.56")
	}
}

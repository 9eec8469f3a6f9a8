package money

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// ratParse is the reference Parse: the exact rational value of the text
// (big.Rat), for the texts of the form Parse reads. It is slow on a large
// exponent (it builds the power of ten), which is why Parse does not use it.
func ratParse(s string) (Amount, error) {
	if strings.Trim(s, "0123456789+-.eE") != "" || strings.ContainsAny(s, "_xXbBoOpP/") {
		return 0, ErrRange // Go's other number forms, which Rat accepts
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, ErrRange
	}
	r.Mul(r, big.NewRat(100, 1))
	if !r.IsInt() {
		return 0, ErrPrecision
	}
	n := r.Num()
	if n.Sign() < 0 || n.Cmp(big.NewInt(int64(Max))) > 0 {
		return 0, ErrRange
	}
	return Amount(n.Int64()), nil
}

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

// TestParseExponents: every exponent form a valid amount can take is read
// exactly, and an exponent no amount can have is refused with the error its
// sign calls for (too large: ErrRange; too small: ErrPrecision), however
// large it is. A zero mantissa is zero whatever its exponent.
func TestParseExponents(t *testing.T) {
	long := "0." + strings.Repeat("0", 1000) + "1e1003" // 10^-1001 × 10^1003 = 100
	tests := []struct {
		in   string
		want Amount
		err  error
	}{
		{"1e2", 10000, nil}, {"125e-2", 125, nil}, {"-0", 0, nil}, {"0.10e1", 100, nil}, {"1.5E+1", 1500, nil},
		{"1e-2", 1, nil}, {"1E0", 100, nil}, {"0.0000000000000000000000000001e28", 100, nil},
		{"9.99999999999e9", Max, nil}, {"999999999999e-2", Max, nil}, {"99999999999900e-4", Max, nil},
		{long, 10000, nil}, {"1" + strings.Repeat("0", 5000) + "e-5000", 100, nil},
		{"00000000000000012.5", 1250, nil}, {"123456789012e-2", 123456789012, nil}, {"12345678901234e-4", 0, ErrPrecision},
		{"1e-3", 0, ErrPrecision}, {"1.005e0", 0, ErrPrecision}, {"-1e-3", 0, ErrPrecision},
		{"1e10", 0, ErrRange}, {"1000000000000e-2", 0, ErrRange}, {"-1e2", 0, ErrRange},
		{"1e1000000", 0, ErrRange}, {"-1e1000000", 0, ErrRange}, {"1e-1000000", 0, ErrPrecision},
		{"1e99999999999999999999999999", 0, ErrRange}, {"1e-99999999999999999999999999", 0, ErrPrecision},
		{"0e1000000", 0, nil}, {"0e-1000000", 0, nil}, {"-0.0e1000000", 0, nil},
		{"1e", 0, ErrRange}, {"1e+", 0, ErrRange}, {"e1", 0, ErrRange}, {"1e1.5", 0, ErrRange}, {"0x1p4", 0, ErrRange},
	}
	for _, tt := range tests {
		name := tt.in
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if got != tt.want || err != tt.err {
				t.Fatalf("Parse = %v, %v; want %v, %v", got, err, tt.want, tt.err)
			}
			var a Amount
			err = json.Unmarshal([]byte(tt.in), &a)
			if json.Valid([]byte(tt.in)) && (a != tt.want || err != tt.err) {
				t.Fatalf("json.Unmarshal = %v, %v; want %v, %v", a, err, tt.want, tt.err)
			}
		})
	}
}

// TestParseCostIsBounded proves, without timing anything, that an exponent
// or a mantissa of any size costs one pass over the text: Parse allocates
// nothing for them, where big.Rat allocates (10^1000000 is 415 kB) before it
// can refuse. The same goes for Scan.
func TestParseCostIsBounded(t *testing.T) {
	for _, in := range []string{
		"1e1000000", "1e-1000000", "-1e1000000", "1e99999999999999999999", "0e1000000", "125e-2",
		"1" + strings.Repeat("0", 28000) + "e-28000", strings.Repeat("9", 28000) + "e1",
		"0." + strings.Repeat("0", 28000) + "1e28003",
	} {
		if n := testing.AllocsPerRun(20, func() { _, _ = Parse(in) }); n != 0 {
			t.Errorf("Parse(%.20q…) allocates %v times per run, want 0", in, n)
		}
	}
	var a Amount
	for _, in := range []string{"1e-1000000", "0e1000000", "1.5e1", "-1.235e0"} {
		var src any = []byte(in)
		if n := testing.AllocsPerRun(20, func() { _ = a.Scan(src) }); n != 0 {
			t.Errorf("Scan(%q) allocates %v times per run, want 0", in, n)
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

// TestParseMatchesRat checks both readers (plain decimals and the rest)
// against the exact rational value on every shape of text they take.
func TestParseMatchesRat(t *testing.T) {
	for _, in := range []string{
		"0", "-0", "7", "12.5", "12.50", "12.500", "12.501", "0.01", "0.001", "0.10",
		"9999999999.99", "9999999999.991", "10000000000", "10000000000.00", "-1", "-0.00",
		"1234567890123", "00012.30", "5.", "5.x", "-", "",
		// exponents, long integer parts and the other decimal forms
		"1e2", "1E2", "1e+2", "1e-2", "1e-3", "125e-2", "0.10e1", "1.5E+1", "-0e5", "-1e-5", "-1e5", "-1.005",
		"0.0000000000000000000000000001e28", "0.0000000000000000000000000001e27", "9.99999999999e9",
		"9.999999999991e9", "999999999999e-2", "1000000000000e-2", "99999999999999e-4", "1e10", "1e9",
		"12345678901234.5e-4", "12345678901234500e-5", "123456789012300e-5", "00000000000000012.5",
		"10000000000000000000000000e-16", "0.5e-1", "5e-3", "+5", "5.", ".5", "-.5", ".5e1", "5.e1", "0.e0",
		"00e5", "1e01", "1e-0", "1.000000000000000000000000000000000000000000000000000000000000000000e2",
		".", "e5", "5e", "5e+", "+-5", "--5", "1.2.3", "1e1e1", "1e2.5", " 5", "5 ", "Inf", "NaN",
		"1_000", "0x10", "0b1", "0o7", "1/2", "1p4", "0x1p4",
	} {
		t.Run(in, func(t *testing.T) {
			got, gotErr := Parse(in)
			want, wantErr := ratParse(in)
			if got != want || gotErr != wantErr {
				t.Fatalf("Parse(%q) = %v, %v; exact path says %v, %v", in, got, gotErr, want, wantErr)
			}
		})
	}
}

// ratScan is the reference Scan: the exact value in cents, rounded half
// away from zero; ok is false for a text that is not a number.
func ratScan(s string) (cents *big.Int, ok bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.Trim(s, "0123456789+-.eE") != "" {
		return nil, false
	}
	r.Mul(r, big.NewRat(100, 1))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Lsh(m.Abs(m), 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	return q, true
}

// TestNumberMatchesRat compares Parse and Scan with the exact rational
// value on many random texts of every form: digits around a point, leading
// and trailing zeros, signs and exponents.
func TestNumberMatchesRat(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "0000123456789"[rnd.IntN(13)]
		}
		return string(b)
	}
	for range 200_000 {
		var b strings.Builder
		b.WriteString([]string{"", "", "-", "+"}[rnd.IntN(4)])
		b.WriteString(digits(rnd.IntN(16)))
		if rnd.IntN(2) == 0 {
			b.WriteString("." + digits(rnd.IntN(8)))
		}
		if rnd.IntN(3) > 0 {
			b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[rnd.IntN(5)])
			b.WriteString(strconv.Itoa(rnd.IntN(40)))
		}
		in := b.String()
		got, gotErr := Parse(in)
		want, wantErr := ratParse(in)
		if got != want || gotErr != wantErr {
			t.Fatalf("Parse(%q) = %v, %v; exact value says %v, %v", in, got, gotErr, want, wantErr)
		}
		// Scan gives the exact rounded value, or an error only for a text
		// that is not a number or cents of more than 18 digits.
		var a Amount
		scanErr := a.Scan(in)
		cents, ok := ratScan(in)
		switch {
		case !ok:
			if scanErr == nil {
				t.Fatalf("Scan(%q) = %d; the text is not a number", in, a)
			}
		case scanErr != nil:
			if cents.CmpAbs(big.NewInt(1e18)) < 0 {
				t.Fatalf("Scan(%q): %v; exact value %d", in, scanErr, cents)
			}
		case !cents.IsInt64() || cents.Int64() != int64(a):
			t.Fatalf("Scan(%q) = %d; exact value %d", in, a, cents)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "12.34", "9999999999.99", "0.001", "-5.5", "1e3", "1.5e-1", "0.0001e4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if e := strings.IndexAny(in, "eE"); e >= 0 && len(in)-e > 5 || len(in) > 1000 {
			t.Skip("the reference would build a power of ten too large to be quick")
		}
		got, gotErr := Parse(in)
		want, wantErr := ratParse(in)
		if got != want || gotErr != wantErr {
			t.Fatalf("Parse(%q) = %v, %v; exact path says %v, %v", in, got, gotErr, want, wantErr)
		}
	})
}

func TestScanRounding(t *testing.T) {
	cases := []struct {
		in   string
		want Amount
	}{
		{"1.234", 123}, {"1.235", 124}, {"-1.235", -124}, {"12", 1200}, {"0.5", 50}, {"1e2", 10000},
		// the exponent forms round as the plain ones do
		{"1.235e0", 124}, {"-1.235e0", -124}, {"-1.234e0", -123}, {"0.005e0", 1}, {"0.0049e0", 0}, {"-0.005e0", -1},
		{"5e-3", 1}, {"4.9e-3", 0}, {"1e-1000000", 0}, {"0e1000000", 0}, {"12345678901234.565", 1234567890123457},
		{"9999999999999999.99", 999999999999999999}, {"9999999999999999.995", 1000000000000000000},
	}
	for _, c := range cases {
		var a Amount
		if err := a.Scan([]byte(c.in)); err != nil || a != c.want {
			t.Errorf("Scan(%q) = %v, %v; want %v", c.in, a, err, c.want)
		}
	}
	// Cents beyond an int64 are an error, not a wrapped amount.
	for _, in := range []string{"1e1000000", "1e17", strings.Repeat("9", 400), "NaN", "Infinity", "1/2"} {
		var a Amount
		if err := a.Scan(in); err == nil {
			t.Errorf("Scan(%.20q) = %v, want an error", in, a)
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
		_, _ = ratParse("1234.56")
	}
}

// BenchmarkParseHugeExponent is the request that once cost 20 to 60 ms per
// value (big.Rat built 10^1000000).
func BenchmarkParseHugeExponent(b *testing.B) {
	for b.Loop() {
		_, _ = Parse("1e1000000")
	}
}

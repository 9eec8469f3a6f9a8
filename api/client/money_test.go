package client

import (
	"encoding/json"
	"math"
	"testing"
)

func TestRoundMoney(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string // as encoding/json sends it
	}{
		{0.1 + 0.2, "0.3"},
		{19.99 * 3, "59.97"},
		{1.005, "1.01"}, // a half as written, though the float64 is 1.00499999…
		{-1.005, "-1.01"},
		{0.285, "0.29"},
		{6.70 * 0.15, "1.01"}, // 15% of 6.70 is 1.005
		{2.675, "2.68"},
		{1.004999, "1"},
		{-0.004, "0"},
		{0.005, "0.01"},
		{9999999999.99, "9999999999.99"},
		{999999999999.995, "1000000000000"},
		{12.3, "12.3"},
		{0, "0"},
	} {
		b, _ := json.Marshal(RoundMoney(c.in))
		if string(b) != c.want {
			t.Errorf("RoundMoney(%v) sends %s, want %s", c.in, b, c.want)
		}
	}
	for _, v := range []float64{math.Inf(1), math.Inf(-1)} {
		if got := RoundMoney(v); got != v {
			t.Errorf("RoundMoney(%v) = %v", v, got)
		}
	}
	if got := RoundMoney(math.NaN()); !math.IsNaN(got) {
		t.Errorf("RoundMoney(NaN) = %v", got)
	}
}

func TestCents(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want int64
		ok   bool
	}{
		{140.23, 14023, true},
		{0.1 + 0.2, 30, true},
		{1.005, 101, true},
		{-1.005, -101, true},
		{-0.004, 0, true},
		{9999999999.99, 999999999999, true},
		{0, 0, true},
		{1e17, 0, false}, // 1e19 cents: beyond int64
		{math.Inf(1), 0, false},
		{math.NaN(), 0, false},
	} {
		got, ok := Cents(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Cents(%v) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	// The reconciliation an accounting integration makes: the line totals
	// as the API sends them (0.1, 0.2, 139.93) sum to 140.23000000000002
	// in float64; their cents meet the total's.
	var sumCents int64
	for _, l := range []float64{0.1, 0.2, 139.93} {
		c, _ := Cents(l)
		sumCents += c
	}
	if want, _ := Cents(140.23); sumCents != want {
		t.Errorf("lines sum to %d cents, total is %d", sumCents, want)
	}
}

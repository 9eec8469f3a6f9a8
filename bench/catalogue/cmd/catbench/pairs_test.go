package main

import (
	"strings"
	"testing"
)

func TestQuantile(t *testing.T) {
	cases := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{5}, 0.5, 5},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5}, 0.25, 2},
		{[]float64{1, 2, 3, 4, 5}, 0.75, 4},
		{[]float64{0, 10}, 0.25, 2.5},
		{[]float64{1, 2, 3}, 1, 3},
	}
	for _, c := range cases {
		if got := quantile(c.xs, c.q); got != c.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
	}
}

func TestPairReport(t *testing.T) {
	detail := endpoint{name: "detail", minRatio: 0.85}
	flat := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cases := []struct {
		name   string
		ep     endpoint
		other  string
		ratios []float64
		want   []string // substrings of the one line; nil: no line
	}{
		{name: "request log met", ep: detail, other: "chain-no-request-log", ratios: []float64{0.99, 0.98, 0.975, 1.01},
			want: []string{"request log, 4 pairs", "median 1.5%", "quartiles 0.5% .. 2.1%", "100% of the pairs", "target <= 3%: met"}},
		{name: "request log missed", ep: detail, other: "chain-no-request-log", ratios: []float64{0.95, 0.94, 0.96},
			want: []string{"median 5.0%", "0% of the pairs", "target <= 3%: MISSED"}},
		{name: "request log cannot tell", ep: detail, other: "chain-no-request-log", ratios: []float64{1.0, 0.99, 0.96, 0.95},
			want: []string{"median 2.5%", "50% of the pairs", "met (the middle half of the pairs is on both sides)"}},
		{name: "baseline", ep: detail, other: "baseline", ratios: []float64{0.80, 0.90, 0.86},
			want: []string{"detail chain/baseline, 3 pairs", "median 0.86", "67% of the pairs", "target >= 0.85: met"}},
		{name: "pgjson", ep: detail, other: "pgjson", ratios: []float64{0.8, 0.8},
			want: []string{"chain/pgjson", "target >= 1.30: MISSED"}},
		{name: "no target", ep: endpoint{name: "deep"}, other: "baseline", ratios: []float64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(c.ratios)
			lines := pairReport(c.ep, "chain", c.other, c.ratios, flat(n, 3), flat(n, 1))
			if c.want == nil {
				if len(lines) != 0 {
					t.Fatalf("lines = %q, want none", lines)
				}
				return
			}
			if len(lines) != 1 {
				t.Fatalf("lines = %q, want one", lines)
			}
			for _, w := range c.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("%q lacks %q", lines[0], w)
				}
			}
			if !strings.Contains(lines[0], "server +3µs/req, PostgreSQL +1µs/req") {
				t.Errorf("%q lacks the CPU differences", lines[0])
			}
		})
	}
}

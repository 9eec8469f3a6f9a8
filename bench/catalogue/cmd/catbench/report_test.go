package main

import (
	"strings"
	"testing"
	"time"
)

func TestRequestLogCost(t *testing.T) {
	ep := endpoint{name: "detail"}
	samples := func(rps ...float64) []sample {
		var ss []sample
		for _, r := range rps {
			ss = append(ss, sample{rps: r})
		}
		return ss
	}
	cases := []struct {
		name    string
		procs   []*child
		sums    []summary
		samples [][]sample
		want    []string // substrings of the verdict; nil: no verdict
	}{
		{name: "without the no-log chain", procs: []*child{{name: "chain"}, {name: "baseline"}},
			sums: []summary{{rps: 90}, {rps: 100}}, samples: [][]sample{samples(90), samples(100)}},
		{name: "missed", procs: []*child{{name: "chain"}, {name: "chain-no-request-log"}, {name: "baseline"}},
			sums: []summary{{rps: 90, cpuPerReq: 95 * time.Microsecond, dbPerReq: 60 * time.Microsecond},
				{rps: 100, cpuPerReq: 90 * time.Microsecond, dbPerReq: 50 * time.Microsecond}, {rps: 120}},
			samples: [][]sample{samples(90, 80), samples(100, 100), samples(120, 120)},
			want: []string{"throughput cost 10.0%", "per round 10.00 20.00%", "server +5µs/req", "PostgreSQL +10µs/req",
				"target <= 3%: MISSED"}},
		{name: "met", procs: []*child{{name: "chain"}, {name: "chain-no-request-log"}},
			sums: []summary{{rps: 98}, {rps: 100}}, samples: [][]sample{samples(98), samples(100)},
			want: []string{"throughput cost 2.0%", "target <= 3%: met"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := requestLogCost(ep, c.procs, c.sums, c.samples)
			if ok != (c.want != nil) {
				t.Fatalf("verdict %q, %v", got, ok)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}

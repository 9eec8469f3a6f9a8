package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// The paired phase (-phases pairs) compares the chain with each other
// server of an endpoint in many short runs back to back, alternating which
// goes first, and reports the distribution of the per-pair ratios. The
// maximum-throughput phase's five rounds per server move by ±10% on this
// shared machine, more than a 3% target; a pair's two runs meet nearly the
// same machine, so the spread of the pairs is the measurement's own and
// their median is what the target is judged on (bench/README.md).

// pairStats is the distribution of a set of per-pair values.
type pairStats struct {
	n              int
	q1, median, q3 float64
	meeting        float64 // the share of the values that meet the target
}

// statsOf returns the quartiles of xs and the share of xs for which ok
// holds.
func statsOf(xs []float64, ok func(float64) bool) pairStats {
	s := slices.Clone(xs)
	slices.Sort(s)
	st := pairStats{n: len(s)}
	if len(s) == 0 {
		return st
	}
	st.q1, st.median, st.q3 = quantile(s, 0.25), quantile(s, 0.5), quantile(s, 0.75)
	hits := 0
	for _, x := range s {
		if ok(x) {
			hits++
		}
	}
	st.meeting = float64(hits) / float64(len(s))
	return st
}

// quantile of sorted xs, interpolating linearly between neighbours.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(lo)
	return sorted[lo]*(1-f) + sorted[lo+1]*f
}

// pairVerdict judges the median, and says when the middle half of the
// pairs lies on both sides of the target: then the run cannot tell.
func pairVerdict(st pairStats, met func(float64) bool) string {
	switch {
	case met(st.q1) != met(st.q3):
		return verdict(met(st.median)) + " (the middle half of the pairs is on both sides)"
	default:
		return verdict(met(st.median))
	}
}

// pairsPhase runs, per endpoint, -pairs pairs of -pair-duration closed-loop
// runs: the chain and each other server of the endpoint.
func (b *bench) pairsPhase(ctx context.Context) error {
	o := b.o
	fmt.Printf("\n== paired runs: the chain and each other server back to back, %d pairs x %v each, "+
		"order alternating, closed loop, %d connections ==\n", o.pairs, o.pairDuration, o.concurrency)
	for _, ep := range b.endpoints() {
		procs := b.servers(ep)
		chain := procs[0]
		for _, other := range procs[1:] {
			if other.role == "chain" && other.name != "chain-no-request-log" && !listed(o.pairWith, other.name) {
				continue // a -chain-db-params or -chain-env variant: the maximum phase compares it, the pairs only when named
			}
			if o.pairWith != "" && !listed(o.pairWith, other.name) {
				continue
			}
			lines, err := b.pairUp(ctx, ep, chain, other)
			if err != nil {
				return err
			}
			for _, l := range lines {
				fmt.Println(l)
			}
		}
	}
	return nil
}

// pairUp measures chain against other on ep and returns the report lines.
func (b *bench) pairUp(ctx context.Context, ep endpoint, chain, other *child) ([]string, error) {
	o := b.o
	tc, to := b.target(chain, ep), b.target(other, ep)
	if _, err := b.closed(ctx, chain, tc, o.warmup); err != nil {
		return nil, err
	}
	if _, err := b.closed(ctx, other, to, o.warmup); err != nil {
		return nil, err
	}
	var ratios, cpuDiff, dbDiff []float64
	for r := range o.pairs {
		var on, off sample
		var err error
		if r%2 == 0 {
			if on, err = b.closed(ctx, chain, tc, o.pairDuration); err == nil {
				off, err = b.closed(ctx, other, to, o.pairDuration)
			}
		} else {
			if off, err = b.closed(ctx, other, to, o.pairDuration); err == nil {
				on, err = b.closed(ctx, chain, tc, o.pairDuration)
			}
		}
		if err != nil {
			return nil, err
		}
		if on.errors+off.errors > 0 {
			return nil, fmt.Errorf("%s %s/%s: errors in a pair: %s%s", ep.name, chain.name, other.name, on.firstErr, off.firstErr)
		}
		ratios = append(ratios, on.rps/off.rps)
		cpuDiff = append(cpuDiff, float64(on.cpuPerReq-off.cpuPerReq)/float64(time.Microsecond))
		dbDiff = append(dbDiff, float64(on.dbPerReq-off.dbPerReq)/float64(time.Microsecond))
	}
	return pairReport(ep, chain.name, other.name, ratios, cpuDiff, dbDiff), nil
}

// pairReport turns the pairs' throughput ratios (chain/other) and CPU
// differences into report lines: the request log's cost against the chain
// that logs nothing, the throughput ratio against a baseline.
func pairReport(ep endpoint, chain, other string, ratios, cpuDiff, dbDiff []float64) []string {
	cpu := statsOf(cpuDiff, func(float64) bool { return true })
	db := statsOf(dbDiff, func(float64) bool { return true })
	where := fmt.Sprintf("server %+.0fµs/req, PostgreSQL %+.0fµs/req (medians)", cpu.median, db.median)
	if other == "chain-no-request-log" {
		costs := make([]float64, len(ratios))
		for i, r := range ratios {
			costs[i] = 100 * (1 - r)
		}
		met := func(c float64) bool { return c <= 100*maxRequestLogCost }
		st := statsOf(costs, met)
		return []string{fmt.Sprintf("%-6s request log, %d pairs: throughput cost median %.1f%% (quartiles %.1f%% .. %.1f%%; "+
			"%.0f%% of the pairs within the target), %s; target <= %.0f%%: %s", ep.name, st.n, st.median, st.q1, st.q3,
			100*st.meeting, where, 100*maxRequestLogCost, pairVerdict(st, met))}
	}
	target := ep.minRatio
	if other == "pgjson" {
		target = 1.3
	}
	if target == 0 {
		return nil
	}
	met := func(r float64) bool { return r >= target }
	st := statsOf(ratios, met)
	return []string{fmt.Sprintf("%-6s %s/%s, %d pairs: throughput ratio median %.2f (quartiles %.2f .. %.2f; "+
		"%.0f%% of the pairs at or above the target), %s; target >= %.2f: %s", ep.name, chain, other, st.n, st.median,
		st.q1, st.q3, 100*st.meeting, where, target, pairVerdict(st, met))}
}

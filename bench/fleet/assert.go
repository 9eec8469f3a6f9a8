package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// expectation is one thing a scenario states it expects, and whether the
// run met it. The harness prints every one at the end and exits 1 when one
// failed (main). Each is true by the product's design as docs/ states it,
// with bounds taken from the configured periods, never from a measured
// timing; the comment where one is stated says which document promises it.
type expectation struct {
	scenario string
	what     string
	ok       bool
	detail   string // what the run saw, printed for a failure
}

type expectations struct {
	mu   sync.Mutex
	list []expectation
}

// expect records one expectation of scenario; detail says what was seen.
func (e *expectations) expect(scenario, what string, ok bool, detail string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, expectation{scenario: scenario, what: what, ok: ok, detail: fmt.Sprintf(detail, args...)})
}

// report is the run's verdict: every expectation with PASS or FAIL, and the
// number that failed.
func (e *expectations) report() (string, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	failed := 0
	b.WriteString("== expectations\n")
	for _, x := range e.list {
		verdict := "PASS"
		if !x.ok {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "%s [%s] %s", verdict, x.scenario, x.what)
		if !x.ok || forceDetail {
			fmt.Fprintf(&b, "\n       saw: %s", x.detail)
		}
		b.WriteByte('\n')
	}
	if failed > 0 {
		fmt.Fprintf(&b, "%d of %d expectations FAILED:\n", failed, len(e.list))
		for _, x := range e.list {
			if !x.ok {
				fmt.Fprintf(&b, "  [%s] %s: %s\n", x.scenario, x.what, x.detail)
			}
		}
	} else {
		fmt.Fprintf(&b, "all %d expectations met\n", len(e.list))
	}
	return b.String(), failed
}

// forceDetail prints what was seen for the expectations met too (-v).
var forceDetail bool

// failuresIn returns the load's first attempts sent in [from, to) that
// failed (to zero: no end).
func failuresIn(rs []result, from, to time.Time) []result {
	var out []result
	for _, r := range rs {
		if r.client == "-" || r.sent.Before(from) || (!to.IsZero() && !r.sent.Before(to)) {
			continue
		}
		if r.failed() {
			out = append(out, r)
		}
	}
	return out
}

// describe lists up to 5 failures as "client kind status code/err at +t".
func describe(rs []result, t0 time.Time) string {
	if len(rs) == 0 {
		return "none"
	}
	var parts []string
	for i, r := range rs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… %d more", len(rs)-5))
			break
		}
		what := r.code
		if r.status == 0 {
			what = r.err
		}
		if len(what) > 80 {
			what = what[:80]
		}
		parts = append(parts, fmt.Sprintf("%s %s %d %s sent at %v, took %v", r.client, r.kind, r.status, what, secs(r.sent.Sub(t0)), r.done.Sub(r.sent).Round(time.Millisecond)))
	}
	return fmt.Sprintf("%d: %s", len(rs), strings.Join(parts, "; "))
}

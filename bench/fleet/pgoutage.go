package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// postgresOutage stops the harness's PostgreSQL (fast shutdown), keeps it
// down for outage, starts it again, and waits until HAProxy routes to
// every pod again. An outage longer than the readiness check interval ×
// failures makes every pod unready (readiness means PostgreSQL answers),
// so HAProxy is left with no server for a new connection (docs/helm.md,
// "Rolling updates and draining"). With outage 0 it is a `pg_ctl restart`,
// too short for any pod to turn unready.
//
// It reports when HAProxy took pods out and put them back, and per client
// kind how requests failed and when they recovered; times are from the
// moment PostgreSQL was stopped.
//
// What it expects (ex), by docs/helm.md, "Rolling updates and draining"
// (every pod turns unready together when PostgreSQL is unreachable; a pod
// answers 503 with Retry-After; HAProxy in TCP mode closes a new
// connection without an answer when no pod is in rotation):
//   - with an outage longer than the checks' interval × failures +
//     timeout, every pod leaves rotation;
//   - every failed request is an enveloped 503 with Retry-After, or has
//     no answer and was sent while no pod was in rotation (give or take
//     the stats poll's 250 ms);
//   - once PostgreSQL is back, every pod is back in rotation within
//     PgBouncer's server_login_retry (it reconnects after that) + one
//     check interval + check timeout (HAProxy's `rise 1`);
//   - no request sent after every pod is back in rotation, and
//     server_login_retry after PostgreSQL's start, fails: a pod that never
//     left rotation (a short outage, a restart) answers 503 until
//     PgBouncer has logged in again.
func postgresOutage(l *load, pg *postgres, ps []*pod, rot *rotationWatch, c settings, ex *expectations) string {
	sc := "postgresql down " + c.pgOutage.String()
	outage := c.pgOutage
	if outage <= 0 {
		sc = "postgresql restarted"
	}
	t0 := time.Now()
	if outage <= 0 {
		must(pg.pgctl("restart", "-m", "fast"))
	} else {
		must(pg.pgctl("stop", "-m", "fast"))
		time.Sleep(outage)
		must(pg.pgctl("start"))
	}
	up := time.Now()
	must(waitFor("every pod back in rotation", 2*time.Minute, func() bool {
		for _, p := range ps {
			if rot.status(p.name) != "UP" {
				return false
			}
		}
		return true
	}))
	allBack := time.Now()
	time.Sleep(5 * time.Second) // requests sent meanwhile show the recovery held
	end := time.Now()
	rel := func(t time.Time) time.Duration { return secs(t.Sub(t0)) }

	var b strings.Builder
	if outage <= 0 {
		fmt.Fprintf(&b, "postgresql restarted (pg_ctl restart), back at %v", rel(up))
	} else {
		fmt.Fprintf(&b, "postgresql stopped for %v, back at %v", outage, rel(up))
	}
	out := rot.outages(t0)
	if len(out) == 0 {
		b.WriteString("; HAProxy took no pod out of rotation")
	}
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, s := range out[n] {
			fmt.Fprintf(&b, "; %s out of rotation %v–%v", n, rel(s[0]), rel(s[1]))
		}
	}
	for _, s := range rot.allOut(t0) {
		fmt.Fprintf(&b, "; NO pod in rotation %v–%v (%v: HAProxy closes every new connection)", rel(s[0]), rel(s[1]), secs(s[1].Sub(s[0])))
	}
	for _, ck := range l.clients {
		b.WriteString("\n  " + outageFailures(l.snapshot(), ck.name, t0, up))
	}

	if outage > c.period*time.Duration(c.fall)+c.probeTimeout {
		var stayed []string
		for _, p := range ps {
			if len(out[p.name]) == 0 {
				stayed = append(stayed, p.name)
			}
		}
		ex.expect(sc, fmt.Sprintf("every pod leaves rotation (outage %v > check interval × failures + timeout %v)", outage, c.period*time.Duration(c.fall)+c.probeTimeout),
			len(stayed) == 0, "never out: %v", stayed)
	}
	const poll = 250 * time.Millisecond // rotationWatch's
	noneIn := rot.allOut(t0)
	var odd, late []result
	settled := allBack
	if up.Add(pgLoginRetry).After(settled) {
		settled = up.Add(pgLoginRetry)
	}
	for _, r := range failuresIn(l.snapshot(), t0, end) {
		if r.sent.After(settled) {
			late = append(late, r)
		}
		if r.status == 503 && r.enveloped && r.retryAfter {
			continue
		}
		during := false
		for _, s := range noneIn {
			during = during || (r.status == 0 && !r.sent.Before(s[0].Add(-poll)) && (s[1].IsZero() || !r.sent.After(s[1].Add(poll))))
		}
		if !during {
			odd = append(odd, r)
		}
	}
	ex.expect(sc, "every failure is an enveloped 503 with Retry-After, or no answer while no pod was in rotation", len(odd) == 0, "%s", describe(odd, t0))
	bound := pgLoginRetry + c.period + c.probeTimeout
	ex.expect(sc, fmt.Sprintf("every pod is back in rotation within server_login_retry + check interval + timeout (%v) of PostgreSQL's start", bound),
		allBack.Sub(up) <= bound, "PostgreSQL back at %v, every pod in rotation at %v", rel(up), rel(allBack))
	ex.expect(sc, fmt.Sprintf("no request sent after every pod is back in rotation and %v (server_login_retry) after PostgreSQL's start fails", pgLoginRetry),
		len(late) == 0, "settled at %v: %s", rel(settled), describe(late, t0))
	return b.String()
}

// outageFailures is one client kind's line: the requests sent since t0
// that failed, by how, and the last failure's time from t0 and after
// PostgreSQL was back at up.
func outageFailures(rs []result, client string, t0, up time.Time) string {
	var total, failed, env503, transport, unknown int
	other := map[string]int{}
	var last time.Time
	for _, r := range rs {
		if r.client != client || r.sent.Before(t0) {
			continue
		}
		total++
		if !r.failed() {
			continue
		}
		failed++
		switch {
		case r.status == 503 && r.enveloped && r.retryAfter:
			env503++
		case r.status == 0:
			transport++
			if r.outcomeUnknown() {
				unknown++
			}
		default:
			k := fmt.Sprintf("%d %s", r.status, r.err)
			if len(k) > 100 {
				k = k[:100]
			}
			other[k]++
		}
		if r.done.After(last) {
			last = r.done
		}
	}
	rec := "none failed"
	if !last.IsZero() {
		rec = fmt.Sprintf("last failure at %v, %v after PostgreSQL was back", secs(last.Sub(t0)), secs(last.Sub(up)))
	}
	return fmt.Sprintf("%s: %d requests, %d failed: %d enveloped 503 with Retry-After, %d transport errors (%d of them keyed writes, outcome unknown), others %v; %s",
		client, total, failed, env503, transport, unknown, other, rec)
}

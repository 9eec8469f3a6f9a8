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
func postgresOutage(l *load, pg *postgres, ps []*pod, rot *rotationWatch, outage time.Duration) string {
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
	time.Sleep(5 * time.Second) // requests sent meanwhile show the recovery held
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

package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
)

// rollingRestart restarts every pod in turn like a rolling update with
// maxUnavailable 0 would replace them: SIGTERM, wait for the process to
// exit, start it again, wait until it is ready and HAProxy routes to it,
// then the next. It says for each pod whether HAProxy took it out of
// rotation at all: when the drain is shorter than the check interval ×
// failures, HAProxy keeps sending new connections to the stopping pod,
// then to its closed port and to the new process while it starts.
func rollingRestart(l *load, ps []*pod, rot *rotationWatch, drain time.Duration) string {
	var b strings.Builder
	b.WriteString("rolling restart:")
	for _, p := range ps {
		t0 := time.Now()
		killed := p.stop(drain + time.Minute)
		stopped := time.Since(t0)
		must(p.start())
		ready := time.Since(t0)
		// Back in rotation once HAProxy's status is plain UP: a failed
		// check counted before the restart (UP 1/2) clears at the next
		// one that passes, and a pod marked DOWN needs one.
		must(waitFor("haproxy routes to "+p.name, 2*time.Minute, func() bool { return rot.status(p.name) == "UP" }))
		back := time.Now()
		how := "exited"
		if killed {
			how = "did not exit, KILLED"
		}
		fmt.Fprintf(&b, "\n  %s: %s %v after SIGTERM, ready again at %v; ", p.name, how, secs(stopped), secs(ready))
		spans := rot.outages(t0)[p.name]
		if len(spans) == 0 {
			b.WriteString("HAProxy never took it out of rotation")
		} else {
			fmt.Fprintf(&b, "HAProxy took it out at %v and back at %v", secs(spans[0][0].Sub(t0)), secs(back.Sub(t0)))
		}
		fmt.Fprintf(&b, "; failed meanwhile: %s", failuresByClient(l, t0, back))
	}
	return b.String()
}

// secs rounds d to 0.1 s.
func secs(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

// failuresByClient counts, per client kind, the requests sent in [from,
// to) that failed, and of those the keyed writes without an answer.
func failuresByClient(l *load, from, to time.Time) string {
	n, f, u := map[string]int{}, map[string]int{}, map[string]int{}
	var kinds []string
	for _, r := range l.snapshot() {
		if r.sent.Before(from) || !r.sent.Before(to) {
			continue
		}
		if n[r.client] == 0 {
			kinds = append(kinds, r.client)
		}
		n[r.client]++
		if r.failed() {
			f[r.client]++
		}
		if r.outcomeUnknown() {
			u[r.client]++
		}
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d of %d (outcome unknown %d)", k, f[k], n[k], u[k])
	}
	return strings.Join(parts, ", ")
}

// killRedisMaster crashes the Redis master that serves the demo
// organization's rate-limit bucket, keeps it dead for outage, then starts
// it again (it rejoins as a replica of the promoted one).
func killRedisMaster(l *load, rc *redisCluster, fx *fixture, outage time.Duration) string {
	out, err := rc.run("master-of", "eventapi:{"+edge.WindowKey("v2:org:"+fx.org)+"}")
	must(err)
	port := strings.TrimSpace(out)
	t0 := time.Now()
	_, err = rc.run("kill", port)
	must(err)
	time.Sleep(outage)
	_, err = rc.run("start-node", port)
	must(err)
	back := time.Now()
	time.Sleep(5 * time.Second)
	var reads, readFails, writes, write503, writeOther int
	var last503 time.Time
	for _, r := range l.snapshot() {
		if r.sent.Before(t0) {
			continue
		}
		switch r.kind {
		case "manifest read", "vehicle list":
			reads++
			if r.failed() {
				readFails++
			}
		case "reservation write":
			writes++
			switch {
			case r.status == 503:
				write503++
				if r.done.After(last503) {
					last503 = r.done
				}
			case r.failed():
				writeOther++
			}
		}
	}
	rec := "no keyed write was refused"
	if !last503.IsZero() {
		rec = fmt.Sprintf("keyed writes recovered %v after the kill (node restarted after %v)", last503.Sub(t0).Round(100*time.Millisecond), back.Sub(t0).Round(100*time.Millisecond))
	}
	return fmt.Sprintf("redis master %s killed for %v: reads %d, failed %d; keyed writes %d, 503 %d, other failures %d; %s",
		port, outage, reads, readFails, writes, write503, writeOther, rec)
}

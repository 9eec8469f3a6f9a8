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
//
// What it expects (ex), by docs/helm.md, "Rolling updates and draining": a
// stopping pod serves for the drain delay, then gives in-flight requests
// the shutdown timeout, so each pod exits by itself within drain +
// shutdown; and when the drain outlasts the checks' interval × failures,
// HAProxy stops routing to the pod before its listener closes, and the
// drain's `Connection: close` moves the keep-alive clients, so no request
// of either client kind fails. With a shorter drain the docs say new
// connections are lost, and the harness expects nothing of them.
func rollingRestart(l *load, ps []*pod, rot *rotationWatch, c settings, ex *expectations) string {
	const sc = "rolling restart"
	drain := c.drain
	drains := drain > c.period*time.Duration(c.fall)
	began := time.Now()
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
		ex.expect(sc, fmt.Sprintf("%s exits by itself within drain + shutdown timeout (%v)", p.name, drain+c.shutdown),
			!killed && stopped <= drain+c.shutdown, "%s %v after SIGTERM", how, secs(stopped))
		if drains {
			ex.expect(sc, fmt.Sprintf("HAProxy takes %s out of rotation before its listener closes (drain %v > check interval × failures %v)", p.name, drain, c.period*time.Duration(c.fall)),
				len(spans) > 0 && spans[0][0].Sub(t0) < stopped, "out at %v, exited at %v", outAt(spans, t0), secs(stopped))
		}
	}
	if drains {
		fails := failuresIn(l.snapshot(), began, time.Now())
		ex.expect(sc, "no request of either client kind fails (the drain outlasts the checks)", len(fails) == 0, "%s", describe(fails, began))
	}
	return b.String()
}

// outAt is when HAProxy first took a pod out, from t0, or "never".
func outAt(spans [][2]time.Time, t0 time.Time) string {
	if len(spans) == 0 {
		return "never"
	}
	return secs(spans[0][0].Sub(t0)).String()
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
//
// What it expects (ex), by docs/edge.md, "When Redis is unavailable" and
// "Redis Cluster": requests without an Idempotency-Key proceed normally
// (the limiter fails open), so none fails; a keyed write on the dead
// master's slots gets an enveloped 503 with Retry-After and executes
// nothing, so every keyed failure is that; readiness does not depend on
// Redis, so no pod leaves rotation; and the pods follow the promotion
// (a reload of the slot map after every failed operation, and every
// clusterReload regardless), so no keyed write sent later than
// clusterReload after the promotion fails. The rate-limit probe after the
// steady phase checks that limits apply again (main).
func killRedisMaster(l *load, rc *redisCluster, fx *fixture, rot *rotationWatch, c settings, ex *expectations) string {
	const sc = "redis master killed"
	key := "eventapi:{" + edge.WindowKey("v2:org:"+fx.org) + "}"
	out, err := rc.run("master-of", key)
	must(err)
	port := strings.TrimSpace(out)
	t0 := time.Now()
	_, err = rc.run("kill", port)
	must(err)
	// The promotion: the key's slot served by another master. Until the
	// cluster marks the dead one failed it still names it.
	var promoted time.Time
	for time.Since(t0) < c.redisOutage {
		if o, err := rc.run("master-of", key); err == nil && strings.TrimSpace(o) != "" && strings.TrimSpace(o) != port {
			promoted = time.Now()
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	time.Sleep(time.Until(t0.Add(c.redisOutage)))
	_, err = rc.run("start-node", port)
	must(err)
	back := time.Now()
	if promoted.IsZero() {
		promoted = back // the outage ended before a failover: the node itself serves again
	}
	time.Sleep(5 * time.Second)
	end := time.Now()
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

	var unkeyed, keyedOther, late []result
	for _, r := range failuresIn(l.snapshot(), t0, end) {
		switch {
		case !r.keyed:
			unkeyed = append(unkeyed, r)
		case !(r.status == 503 && r.enveloped && r.retryAfter):
			keyedOther = append(keyedOther, r)
		}
		if r.keyed && r.sent.After(promoted.Add(clusterReload)) {
			late = append(late, r)
		}
	}
	ex.expect(sc, "no request without an Idempotency-Key fails (rate limits fail open)", len(unkeyed) == 0, "%s", describe(unkeyed, t0))
	ex.expect(sc, "a keyed write fails only as an enveloped 503 with Retry-After", len(keyedOther) == 0, "%s", describe(keyedOther, t0))
	ex.expect(sc, "no pod leaves rotation (readiness does not depend on Redis)", rot.maxDown(sc) == 0, "%d pods out at most", rot.maxDown(sc))
	ex.expect(sc, fmt.Sprintf("keyed writes execute again within %v of the promotion (slot map reloaded on failure, and every %v)", clusterReload, clusterReload),
		len(late) == 0, "promoted at %v; failed after %v: %s", secs(promoted.Sub(t0)), secs(promoted.Add(clusterReload).Sub(t0)), describe(late, t0))
	return fmt.Sprintf("redis master %s killed for %v (promotion seen at %v): reads %d, failed %d; keyed writes %d, 503 %d, other failures %d; %s",
		port, c.redisOutage, secs(promoted.Sub(t0)), reads, readFails, writes, write503, writeOther, rec)
}

// clusterReload is how often the pods' Redis Cluster client reloads the
// slot map whatever happens (docs/edge.md, "Redis Cluster": "reloads it
// every 10 s regardless"; platform/edge's clusterReloadInterval).
const clusterReload = 10 * time.Second

package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
)

// rollingRestart restarts every pod in turn like a rolling update with
// maxUnavailable 0 would replace them: SIGTERM, wait for the process to
// exit, start it again, wait until it is ready and HAProxy routes to it,
// then the next.
func rollingRestart(ps []*pod, lb *haproxy, drain time.Duration) string {
	var b strings.Builder
	b.WriteString("rolling restart:")
	for _, p := range ps {
		t0 := time.Now()
		p.stop(drain + time.Minute)
		stopped := time.Since(t0)
		must(p.start())
		must(waitFor("haproxy routes to "+p.name, 2*time.Minute, func() bool { return lb.down() == 0 }))
		fmt.Fprintf(&b, " %s stopped in %v, back in rotation %v after SIGTERM;", p.name, stopped.Round(100*time.Millisecond), time.Since(t0).Round(100*time.Millisecond))
	}
	return b.String()
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

// restartPostgres restarts the harness's PostgreSQL (fast shutdown) and
// reports how the requests failed meanwhile and when they recovered.
func restartPostgres(l *load, pg *postgres) string {
	t0 := time.Now()
	must(pg.pgctl("restart", "-m", "fast"))
	up := time.Now()
	time.Sleep(10 * time.Second)
	var failed, enveloped503 int
	var lastFail time.Time
	other := map[string]int{}
	for _, r := range l.snapshot() {
		if r.sent.Before(t0) || !r.failed() {
			continue
		}
		failed++
		if r.status == 503 && r.enveloped && r.retryAfter {
			enveloped503++
		} else {
			k := fmt.Sprintf("%d %s", r.status, r.err)
			if len(k) > 100 {
				k = k[:100]
			}
			other[k]++
		}
		if r.done.After(lastFail) {
			lastFail = r.done
		}
	}
	rec := "no request failed"
	if !lastFail.IsZero() {
		rec = fmt.Sprintf("last failure %v after PostgreSQL was back", lastFail.Sub(up).Round(100*time.Millisecond))
	}
	return fmt.Sprintf("postgresql restart took %v: %d failed requests, %d of them enveloped 503 with Retry-After, others %v; %s",
		up.Sub(t0).Round(100*time.Millisecond), failed, enveloped503, other, rec)
}

// rotationWatch polls HAProxy and keeps, per phase, the largest number of
// pods out of rotation.
type rotationWatch struct {
	mu    sync.Mutex
	cur   string
	worst map[string]int
	stop  chan struct{}
	done  chan struct{}
}

func watchRotation(lb *haproxy) *rotationWatch {
	w := &rotationWatch{worst: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{}), cur: "warm-up"}
	go func() {
		defer close(w.done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			n := lb.down()
			w.mu.Lock()
			w.worst[w.cur] = max(w.worst[w.cur], n)
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *rotationWatch) phase(p string) {
	w.mu.Lock()
	w.cur = p
	w.mu.Unlock()
}

func (w *rotationWatch) maxDown(p string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.worst[p]
}

func (w *rotationWatch) halt() {
	close(w.stop)
	<-w.done
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"syscall"
	"time"
)

// killPod crashes one pod under load: SIGKILL of the `eventapi serve`
// process (no drain, no shutdown: its open connections are reset and the
// transactions it had open are rolled back by PostgreSQL), waits until
// HAProxy's checks take it out of rotation, starts it again and waits
// until HAProxy routes to it. It reports when each happened and what
// failed meanwhile per client kind; the load retries every keyed write
// whose answer was lost with its key (retry.go), and checkExactlyOnce
// counts their records in the database at the end.
//
// What it expects (ex):
//   - HAProxy takes the pod out within check interval × failures + check
//     timeout of the kill: a check of a dead process fails at once
//     (connection refused), the first within one interval and the last of
//     `fall` within fall intervals, each over by its timeout at the latest
//     (bench/README.md, "fleet": out after 2 failures);
//   - every request that fails got no answer at all (a transport error):
//     the dead process answers nothing, and the other pods and the
//     database are untouched, so no 5xx and no unexpected 4xx;
//   - no request sent after HAProxy took the pod out fails: HAProxy sends
//     no new connection to a server that is DOWN, and the dead process's
//     connections were closed by its kernel at the kill;
//   - the restarted pod is back in rotation within one check interval +
//     check timeout of being ready (HAProxy's `rise 1`);
//   - every keyed write that lost its answer to the kill (the load's, and
//     killBurst sent straight to the pod just before it, which the process
//     holds at the kill) is answered, through retries with its key,
//     within the SDK's InUseFor of 40 s
//     (docs/sdk.md): a kill -9 ends the process's connections, so its
//     open transaction is rolled back at once and its key executes again
//     (docs/edge.md, "A dead attempt's key"), or replays if it had
//     committed ("Crash-safe design").
func killPod(l *load, p *pod, rot *rotationWatch, c settings, ex *expectations) string {
	const sc = "pod killed"
	const inUseFor = 40 * time.Second // the SDK's client.Retry InUseFor (docs/sdk.md)
	l.burst(p, killBurst)
	t0 := time.Now()
	p.kill()
	must(waitFor("haproxy takes "+p.name+" out", 2*time.Minute, func() bool { return !inRotation(rot.status(p.name)) }))
	out := time.Now()
	must(p.start())
	ready := time.Now()
	must(waitFor("haproxy routes to "+p.name, 2*time.Minute, func() bool { return rot.status(p.name) == "UP" }))
	back := time.Now()
	time.Sleep(5 * time.Second) // requests sent meanwhile show the recovery held
	end := time.Now()

	rs := l.snapshot()
	outBound := c.period*time.Duration(c.fall) + c.probeTimeout
	ex.expect(sc, fmt.Sprintf("HAProxy takes the killed pod out within check interval × failures + timeout (%v)", outBound),
		out.Sub(t0) <= outBound, "out at %v", secs(out.Sub(t0)))
	var notTransport, afterOut []result
	for _, r := range failuresIn(rs, t0, end) {
		if r.status != 0 {
			notTransport = append(notTransport, r)
		}
		if r.sent.After(out) {
			afterOut = append(afterOut, r)
		}
	}
	ex.expect(sc, "every failure is a request without an answer (no 5xx, no unexpected 4xx)", len(notTransport) == 0, "%s", describe(notTransport, t0))
	ex.expect(sc, "no request sent after HAProxy took the pod out fails", len(afterOut) == 0, "out at %v; %s", secs(out.Sub(t0)), describe(afterOut, t0))
	ex.expect(sc, fmt.Sprintf("the restarted pod is back in rotation within check interval + timeout (%v) of being ready", c.period+c.probeTimeout),
		back.Sub(ready) <= c.period+c.probeTimeout, "ready at %v, back at %v", secs(ready.Sub(t0)), secs(back.Sub(t0)))

	var slow []string
	lost, replayed, executed, inUse := 0, 0, 0, 0
	burstLost, burstAnswered := 0, 0
	for _, w := range l.keyedWrites() {
		if w.client == "in flight" {
			if !w.first.outcomeUnknown() {
				burstAnswered++
				continue
			}
			burstLost++
		}
		// In flight at the kill or sent after it, and without an answer.
		if w.first.done.Before(t0) || !w.first.sent.Before(end) || !w.first.outcomeUnknown() {
			continue
		}
		lost++
		inUse += w.inUse
		if w.final >= 200 && w.final < 300 {
			if w.replayed {
				replayed++
			} else {
				executed++
			}
		}
		if w.final < 200 || w.final >= 300 || w.resolved.Sub(w.first.sent) > inUseFor {
			slow = append(slow, fmt.Sprintf("%s %s: %d %s after %v, %d retries (%d in use)", w.client, w.key, w.final, w.finalCode, secs(w.resolved.Sub(w.first.sent)), w.retries, w.inUse))
		}
	}
	ex.expect(sc, fmt.Sprintf("every keyed write whose answer the kill lost (%d) is answered within %v of its first attempt, retried with its key", lost, inUseFor),
		len(slow) == 0, "%s", strings.Join(first(slow, 5), "; "))

	var b strings.Builder
	fmt.Fprintf(&b, "pod killed: %s got SIGKILL; HAProxy took it out at %v, ready again at %v, back in rotation at %v; failed meanwhile: %s",
		p.name, secs(out.Sub(t0)), secs(ready.Sub(t0)), secs(back.Sub(t0)), failuresByClient(l, t0, end))
	fmt.Fprintf(&b, "\n  %d keyed writes sent straight to %s just before the kill: %d answered before it, %d lost their answer",
		killBurst, p.name, burstAnswered, burstLost)
	fmt.Fprintf(&b, "\n  keyed writes without an answer (the load's and those): %d; retried with their key: %d executed by the retry, %d replayed (committed before the kill), %d answers 409 idempotency_key_in_use on the way",
		lost, executed, replayed, inUse)
	return b.String()
}

// killBurst is how many keyed writes killPod sends straight to the pod it
// is about to kill: the load alone rarely has one inside the process at
// the kill (most of its lost answers are new connections HAProxy sent to
// the dead port, which never reached a process), and these are what
// docs/edge.md's "A dead attempt's key" and "Crash-safe design" are about.
const killBurst = 20

// burst sends n keyed writes at once straight to p, not through HAProxy,
// and returns once every one is written to its connection and the first
// answer came back (or a second passed): the pod then holds the others
// somewhere between reading them and its reply (some committed, some
// inside their transaction, some not begun), and the kill that follows
// loses their answers. They count as keyed writes of the
// phase (client "in flight"), retried through HAProxy with their keys like
// any other, and not in the load's per-phase figures.
func (l *load) burst(p *pod, n int) {
	ck := clientKind{name: "in flight", client: l.clients[0].client}
	phase := l.phase.Load().(string)
	var written sync.WaitGroup
	written.Add(n)
	answered := make(chan struct{})
	var firstAnswer sync.Once
	for i := 0; i < n; i++ {
		key, body := l.reservation(l.seq.Add(1))
		var once sync.Once
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(written.Done) }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", p.url()+"/api/v2/equipment_reservations", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+l.fx.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			r := result{phase: phase, client: ck.name, kind: "reservation write", keyed: true, sent: time.Now()}
			resp, err := ck.client.Do(req)
			once.Do(written.Done) // an error before the request was written
			r.done = time.Now()
			if err != nil {
				r.err = err.Error()
			} else {
				b, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				r.status, r.code = resp.StatusCode, errorCode(b)
				firstAnswer.Do(func() { close(answered) })
			}
			l.keyedDone(&r, key, body, ck)
		}()
	}
	written.Wait()
	select {
	case <-answered:
	case <-time.After(time.Second):
	}
}

// kill sends SIGKILL and waits until the process is gone.
func (p *pod) kill() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.cmd = nil
}

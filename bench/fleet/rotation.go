package main

import (
	"sync"
	"time"
)

// rotationWatch polls HAProxy's stats socket every 250 ms. It keeps, per
// phase, the largest number of pods out of rotation, and every change of a
// pod's state with its time, so that a scenario can tell whether and when
// HAProxy took a pod out and put it back. A state lasts at least one check
// interval (seconds), so 250 ms polling misses none.
type rotationWatch struct {
	lb      *haproxy
	mu      sync.Mutex
	cur     string
	worst   map[string]int
	state   map[string]string // pod → HAProxy status now (UP, UP 1/2, DOWN, …)
	changes []stateChange
	stop    chan struct{}
	done    chan struct{}
}

// stateChange is a pod's HAProxy status from t on.
type stateChange struct {
	t      time.Time
	pod    string
	status string
}

// inRotation reports whether HAProxy routes new connections to a pod in
// this status: UP, also while a failed check is counted (UP 1/2).
func inRotation(status string) bool { return len(status) >= 2 && status[:2] == "UP" }

func watchRotation(lb *haproxy) *rotationWatch {
	w := &rotationWatch{lb: lb, worst: map[string]int{}, state: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{}), cur: "warm-up"}
	w.poll()
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
			w.poll()
		}
	}()
	return w
}

func (w *rotationWatch) poll() {
	st, err := w.lb.states()
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || len(st) == 0 {
		w.worst[w.cur] = max(w.worst[w.cur], -1)
		return
	}
	n := 0
	for pod, s := range st {
		if !inRotation(s) {
			n++
		}
		if w.state[pod] != s {
			w.state[pod] = s
			w.changes = append(w.changes, stateChange{t: now, pod: pod, status: s})
		}
	}
	w.worst[w.cur] = max(w.worst[w.cur], n)
}

// status is a pod's HAProxy status as last polled.
func (w *rotationWatch) status(pod string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state[pod]
}

// outages returns, per pod, the spans since `since` in which HAProxy had it
// out of rotation; a span still open ends at the zero time.
func (w *rotationWatch) outages(since time.Time) map[string][][2]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][][2]time.Time{}
	in := map[string]bool{}
	for _, c := range w.changes {
		wasIn, seen := in[c.pod]
		in[c.pod] = inRotation(c.status)
		if c.t.Before(since) {
			continue
		}
		spans := out[c.pod]
		switch {
		case !in[c.pod] && (wasIn || !seen):
			out[c.pod] = append(spans, [2]time.Time{c.t})
		case in[c.pod] && !wasIn && seen && len(spans) > 0 && spans[len(spans)-1][1].IsZero():
			spans[len(spans)-1][1] = c.t
		}
	}
	return out
}

// allOut returns the spans since `since` in which no pod was in rotation
// (HAProxy then has no server for a new connection); an open span ends at
// the zero time.
func (w *rotationWatch) allOut(since time.Time) [][2]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var spans [][2]time.Time
	in := map[string]bool{}
	for _, c := range w.changes {
		in[c.pod] = inRotation(c.status)
		if c.t.Before(since) {
			continue
		}
		none := true
		for _, v := range in {
			none = none && !v
		}
		open := len(spans) > 0 && spans[len(spans)-1][1].IsZero()
		switch {
		case none && !open:
			spans = append(spans, [2]time.Time{c.t})
		case !none && open:
			spans[len(spans)-1][1] = c.t
		}
	}
	return spans
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

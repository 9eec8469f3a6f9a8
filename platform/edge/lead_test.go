package edge

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestLeaderTakesAlongReadyAdmissions: an admission that finds no batch in
// flight yields once before it sends, and an admission whose goroutine was
// ready to run meanwhile goes out in the same script call (lead). On one
// processor the second goroutine is runnable, not running, when the first
// calls Admit, and it runs during the first's yield until it queues behind
// it. The joined admission is decided even when the first request was
// cancelled, which must not cost it its answer.
//
// The scheduler does not promise that order (once in 61 schedules, for
// one, it takes the global queue first, where the yielding goroutine
// waits): up to 4 tries in 100 here went out in two calls. So each case
// tries up to maxTries times and needs one try in which the two share a
// call. Without the yield no try can: the ready goroutine runs only once
// the first blocks on Redis's reply, after its call went out.
func TestLeaderTakesAlongReadyAdmissions(t *testing.T) {
	const maxTries = 10
	r := prefixedRedis(t, privateRedis(t), "edge-lead:"+testName()+":")
	hook := &scriptHook{}
	r.Client().AddHook(hook)
	background := context.Background()
	if _, err := r.Admit(background, testName(), 10, time.Minute); err != nil { // connection and script ready
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(background)
	cancel()

	for _, tc := range []struct {
		name   string
		leader context.Context
	}{
		{"leader's request live", background},
		{"leader's request cancelled", cancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for try := 1; try <= maxTries; try++ {
				joined, calls := leadOnce(r, hook, tc.leader)
				if len(calls) == 1 && len(calls[0]) == 2 {
					if joined.err != nil || !joined.d.Allowed || joined.d.Remaining != 8 {
						t.Errorf("the joined admission: %+v, %v; want the second of the window (Remaining 8)", joined.d, joined.err)
					}
					return
				}
				t.Logf("try %d: script calls carried %v admissions' keys", try, calls)
			}
			t.Errorf("in %d tries the ready admission never went out in the first one's call", maxTries)
		})
	}
}

// leadResult is an admission's answer.
type leadResult struct {
	d   Decision
	err error
}

// leadOnce admits two requests of a new key on one processor: a goroutine
// made runnable first, then one on this goroutine whose request's context
// is leader. It returns the goroutine's answer and each script call's keys.
func leadOnce(r *Redis, hook *scriptHook, leader context.Context) (leadResult, [][]string) {
	hook.reset()
	key := testName()
	joined := make(chan leadResult, 1)
	func() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		go func() {
			d, err := r.Admit(context.Background(), key, 10, time.Minute)
			joined <- leadResult{d, err}
		}()
		_, _ = r.Admit(leader, key, 10, time.Minute)
	}()
	got := <-joined
	hook.mu.Lock()
	defer hook.mu.Unlock()
	return got, append([][]string(nil), hook.keys...)
}

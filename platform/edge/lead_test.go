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
// processor the order is fixed: the second goroutine is runnable, not
// running, when the first calls Admit, and it runs during the first's
// yield until it queues behind it. The joined admission is decided even
// when the first request was cancelled, which must not cost it its answer.
func TestLeaderTakesAlongReadyAdmissions(t *testing.T) {
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
			hook.reset()
			key := testName()
			type result struct {
				d   Decision
				err error
			}
			joined := make(chan result, 1)
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				go func() {
					d, err := r.Admit(background, key, 10, time.Minute)
					joined <- result{d, err}
				}()
				_, _ = r.Admit(tc.leader, key, 10, time.Minute)
			}()
			got := <-joined
			if got.err != nil || !got.d.Allowed || got.d.Remaining != 8 {
				t.Errorf("the joined admission: %+v, %v; want the second of the window (Remaining 8)", got.d, got.err)
			}
			hook.mu.Lock()
			defer hook.mu.Unlock()
			if hook.calls != 1 || len(hook.keys[0]) != 2 {
				t.Errorf("script calls carried %v admissions' keys; want one call with both", hook.keys)
			}
		})
	}
}

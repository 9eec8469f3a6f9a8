package apitest

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/config"
)

// HoldLargeReads takes one slot of the service's large-read bulkhead
// (docs/architecture.md, "Memory") and keeps it until the returned release
// is called. With config.LargeReads = 1 (WithOneLargeReadSlot) every large
// read then waits.
func (e *Env) HoldLargeReads() (release func()) {
	held, done := make(chan struct{}), make(chan struct{})
	go func() {
		_ = e.Svc.LargeReads.Run(context.Background(), func() error { close(held); <-done; return nil })
	}()
	<-held
	return func() { close(done) }
}

// GetWhileHeld sends a GET of each path in turn (SendWhileHeld).
func (o *Org) GetWhileHeld(t testing.TB, paths ...string) <-chan *Response {
	t.Helper()
	sends := make([]func() *Response, len(paths))
	for i, path := range paths {
		sends[i] = func() *Response { return o.Get(path) }
	}
	return o.SendWhileHeld(t, sends...)
}

// SendWhileHeld sends each request in turn, each once the one before
// waits for the bulkhead, and returns where their answers arrive: every
// request must be a large one, or the wait for it fails the test. Call it
// between HoldLargeReads and its release.
func (o *Org) SendWhileHeld(t testing.TB, sends ...func() *Response) <-chan *Response {
	t.Helper()
	b := o.env.Svc.LargeReads
	results := make(chan *Response, len(sends))
	for n, send := range sends {
		go func() { results <- send() }()
		for deadline := time.Now().Add(time.Minute); b.Waiting() != int64(n+1); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("request %d: %d waiting for the bulkhead, want %d", n+1, b.Waiting(), n+1)
			}
		}
	}
	return results
}

// ReleaseAndCollect fails the test if any of the n answers SendWhileHeld
// started has arrived while the slot is held, then releases the slot and
// returns the n answers in the order they arrive.
func ReleaseAndCollect(t testing.TB, results <-chan *Response, n int, release func()) []*Response {
	t.Helper()
	select {
	case res := <-results:
		release()
		t.Fatalf("a large read answered (%d %s) while the only slot was held", res.Status, res.Body)
	default:
	}
	release()
	out := make([]*Response, n)
	for i := range out {
		out[i] = <-results
	}
	return out
}

// WithOneLargeReadSlot gives the app one slot of large reads, which
// HoldLargeReads takes, and a rate limit no test reaches.
func WithOneLargeReadSlot() Option {
	return WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000; c.LargeReads = 1 })
}

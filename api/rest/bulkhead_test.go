package rest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// hold takes b's slot until release is closed; it returns once the slot is held.
func hold(t *testing.T, b *rest.Bulkhead) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go func() {
		_ = b.Run(context.Background(), func() error { close(held); <-done; return nil })
	}()
	<-held
	return func() { close(done) }
}

// waitFor returns once b has n waiters, failing the test after a minute.
func waitFor(t *testing.T, b *rest.Bulkhead, n int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); b.Waiting() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting = %d, want %d", b.Waiting(), n)
		}
	}
}

func TestBulkheadRunsAtOnceWithAFreeSlotOrNone(t *testing.T) {
	boom := errors.New("boom")
	for name, b := range map[string]*rest.Bulkhead{"free slot": rest.NewBulkhead(1, time.Minute), "nil": nil} {
		t.Run(name, func(t *testing.T) {
			if err := b.Run(context.Background(), func() error { return boom }); err != boom {
				t.Fatalf("Run = %v, want build's own error", err)
			}
		})
	}
}

func TestBulkheadWaitsForASlot(t *testing.T) {
	b := rest.NewBulkhead(1, time.Minute)
	release := hold(t, b)
	ran := make(chan error, 1)
	go func() { ran <- b.Run(context.Background(), func() error { return nil }) }()
	waitFor(t, b, 1)
	select {
	case err := <-ran:
		t.Fatalf("Run returned (%v) while the only slot was held", err)
	default:
	}
	release()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, 0)
}

func TestBulkheadGivesUp(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		maxWait time.Duration
		ctx     context.Context
	}{
		"after its longest wait": {time.Millisecond, context.Background()},
		"when the request ends":  {time.Hour, canceled},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := rest.NewBulkhead(1, tc.maxWait)
			defer hold(t, b)()
			err := b.Run(tc.ctx, func() error { t.Error("build ran without a slot"); return nil })
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.ServiceUnavailable || e.RetryAfter != 1 {
				t.Fatalf("Run = %v, want service_unavailable with Retry-After 1", err)
			}
			if b.Waiting() != 0 {
				t.Fatalf("waiting = %d after giving up", b.Waiting())
			}
		})
	}
}

func TestBulkheadFreesTheSlotOfAPanickingBuild(t *testing.T) {
	b := rest.NewBulkhead(1, time.Millisecond)
	func() {
		defer func() { _ = recover() }()
		_ = b.Run(context.Background(), func() error { panic("boom") })
	}()
	if err := b.Run(context.Background(), func() error { return nil }); err != nil {
		t.Fatalf("the slot stayed taken after a panic: %v", err)
	}
}

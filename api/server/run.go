package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Shutdown says how RunWith stops once its context is done.
type Shutdown struct {
	// Drain is started at once: /readyz answers 503 and responses carry
	// Connection: close (nil: nothing to mark).
	Drain *Drain
	// OnDrain, when set, runs when the drain starts, beside the HTTP drain
	// (serve stops the webhook worker's claiming there).
	OnDrain func()
	// Delay is how long the listener keeps serving after that, so that load
	// balancers and Kubernetes endpoints stop routing here first.
	Delay time.Duration
	// Hurry, when closed, ends the delay early (a second signal).
	Hurry <-chan struct{}
	// Timeout bounds the wait for in-flight requests once the listener is
	// closed.
	Timeout time.Duration
	// Log, when set, records the steps.
	Log *slog.Logger
}

// abandonWait bounds the wait for cancelled requests to end: a cancelled
// statement stops within database.cancelDeadline (1 s), or its connection
// is closed.
const abandonWait = 3 * time.Second

// Run serves app on ln until ctx is done, then stops accepting connections
// and waits up to timeout for in-flight requests (no drain delay).
func Run(ctx context.Context, app *fiber.App, ln net.Listener, timeout time.Duration) error {
	return RunWith(ctx, app, ln, Shutdown{Timeout: timeout})
}

// RunWith serves app on ln until ctx is done (for example on SIGTERM). Then:
// the drain starts (not ready, Connection: close), the listener keeps
// serving for s.Delay, then it stops accepting and in-flight requests get up
// to s.Timeout to finish. The caller closes the pools afterwards.
func RunWith(ctx context.Context, app *fiber.App, ln net.Listener, s Shutdown) error {
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	errc := make(chan error, 1)
	go func() { errc <- app.Listener(Listener(ln)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if s.Drain != nil {
		s.Drain.Start()
	}
	if s.OnDrain != nil {
		s.OnDrain()
	}
	s.Log.Info("eventapi draining: not ready, still serving", "drain_delay", s.Delay.String())
	if s.Delay > 0 {
		t := time.NewTimer(s.Delay)
		select {
		case <-t.C:
		case <-s.Hurry:
			t.Stop()
			s.Log.Info("eventapi draining: delay cut short by a second signal")
		case err := <-errc:
			t.Stop()
			return err
		}
	}
	s.Log.Info("eventapi draining: closing the listener, finishing in-flight requests", "timeout", s.Timeout.String())
	if err := app.ShutdownWithTimeout(s.Timeout); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		s.Log.Warn("eventapi draining: in-flight requests outlived the shutdown timeout; cancelling them", "timeout", s.Timeout.String())
		if s.Drain != nil && !s.Drain.Abandon(abandonWait) {
			s.Log.Warn("eventapi draining: cancelled requests still running; closing the pools under them", "waited", abandonWait.String())
		}
	}
	return <-errc
}

package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Drain is the process's shutdown state. Once started, /readyz answers 503,
// so that load balancers and Kubernetes endpoints stop sending new traffic,
// while the listener keeps serving for the drain delay; every response then
// carries Connection: close, so that clients on keep-alive connections
// reconnect (to another instance) instead of reusing a connection that is
// about to be closed under them.
type Drain struct {
	draining atomic.Bool
	// running counts the requests being served (serve).
	running atomic.Int64
	// abandoned is cancelled by Abandon; every request's context descends
	// from it (serve).
	once      sync.Once
	abandoned context.Context
	abandon   context.CancelFunc
}

// Start marks the process as draining. It is idempotent.
func (d *Drain) Start() { d.draining.Store(true) }

// Abandon ends the context of every request still running, once the
// shutdown timeout has passed: their queries are cancelled in PostgreSQL
// and their transactions roll back, instead of committing after the
// process is gone, unanswered and unlogged. It waits up to wait for them
// to end, so that the pools are not closed under them, and reports whether
// they did. It is idempotent.
func (d *Drain) Abandon(wait time.Duration) bool {
	d.init()
	d.abandon()
	deadline := time.Now().Add(wait)
	for d.running.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // the shutdown's last step: no event to wait on
	}
	return true
}

// done is the context Abandon cancels.
func (d *Drain) done() context.Context {
	d.init()
	return d.abandoned
}

func (d *Drain) init() {
	d.once.Do(func() { d.abandoned, d.abandon = context.WithCancel(context.Background()) })
}

// Draining reports whether Start was called.
func (d *Drain) Draining() bool { return d.draining.Load() }

// serve is the app's first middleware. It roots the request's context in
// the one Abandon cancels, so that everything the request runs ends with
// it (a child of that context, not a callback registered per request:
// context.AfterFunc cost about a microsecond a request); it counts the
// requests running, which Abandon waits for; and it sets Connection:
// close on every response written while the process drains, including
// those of requests that began before.
func (d *Drain) serve(c *fiber.Ctx) error {
	c.SetUserContext(d.done())
	d.running.Add(1)
	defer d.running.Add(-1)
	err := c.Next()
	if d.Draining() {
		c.Response().SetConnectionClose()
	}
	return err
}

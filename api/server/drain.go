package server

import (
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
)

// Drain is the process's shutdown state. Once started, /readyz answers 503,
// so that load balancers and Kubernetes endpoints stop sending new traffic,
// while the listener keeps serving for the drain delay; every response then
// carries Connection: close, so that clients on keep-alive connections
// reconnect (to another instance) instead of reusing a connection that is
// about to be closed under them.
type Drain struct{ draining atomic.Bool }

// Start marks the process as draining. It is idempotent.
func (d *Drain) Start() { d.draining.Store(true) }

// Draining reports whether Start was called.
func (d *Drain) Draining() bool { return d.draining.Load() }

// closeWhileDraining sets Connection: close on every response written while
// the process drains, including those of requests that began before.
func (d *Drain) closeWhileDraining(c *fiber.Ctx) error {
	err := c.Next()
	if d.Draining() {
		c.Response().SetConnectionClose()
	}
	return err
}

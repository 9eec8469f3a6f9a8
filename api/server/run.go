package server

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Run serves app on ln until ctx is done (for example on SIGTERM), then stops
// accepting connections and waits up to drain for in-flight requests to
// finish before returning. The caller closes the pools afterwards.
func Run(ctx context.Context, app *fiber.App, ln net.Listener, drain time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- app.Listener(Listener(ln)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if err := app.ShutdownWithTimeout(drain); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return <-errc
}

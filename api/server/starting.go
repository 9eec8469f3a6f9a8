package server

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// startingRetryAfter is the Retry-After of the answers given while the
// process waits for the database: its first retries are a second or two
// apart.
const startingRetryAfter = 2

// handOffWait bounds how long ServeWhileStarting's stop waits for the
// answers it is writing: each is one short 503 or 200, on a connection that
// closes after it.
const handOffWait = 2 * time.Second

// ServeWhileStarting answers on ln while serve waits for the database
// (docs/helm.md, "Rolling updates and draining"): /livez 200, since the
// process runs and waits as it should, so a startup probe passes and the
// kubelet does not restart a pod that waits out an outage of PostgreSQL
// into its crash-loop back-off; /readyz 503 with the readiness body,
// status "starting"; any other request 503 service_unavailable with
// Retry-After, in its surface's envelope. Every answer closes its
// connection. stop ends it and hands ln back, open, for the service to
// serve. ln must be a *net.TCPListener (a listener of another kind is
// handed back at once, unserved).
func ServeWhileStarting(ln net.Listener, log *slog.Logger) (stop func()) {
	tcp, ok := ln.(*net.TCPListener)
	if !ok {
		return func() {}
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true, DisableKeepalive: true, ReadTimeout: readTimeout,
		ErrorHandler: rest.ErrorHandler(log)})
	app.Get("/livez", livez)
	app.Get("/readyz", func(*fiber.Ctx) error {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "not ready: starting, waiting for PostgreSQL",
			Details:    Readiness{Status: "starting", Postgres: depUnavailable, Redis: depNotChecked},
			RetryAfter: startingRetryAfter}
	})
	app.Use(func(*fiber.Ctx) error {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "the service is starting: it waits for its database",
			RetryAfter: startingRetryAfter}
	})
	h := &handOff{TCPListener: tcp}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := app.Listener(h); err != nil {
			log.Error("the listener while starting stopped", "error", err)
		}
	}()
	return func() {
		h.stopped.Store(true)
		_ = tcp.SetDeadline(time.Now()) // wakes the Accept waiting
		<-served
		_ = app.ShutdownWithTimeout(handOffWait) // the answers in flight
		_ = tcp.SetDeadline(time.Time{})
	}
}

// handOff is a listener ServeWhileStarting can stop serving without
// closing it: once stopped, its Accept reports the end of the listener,
// and its Close does nothing.
type handOff struct {
	*net.TCPListener
	stopped atomic.Bool
}

func (h *handOff) Accept() (net.Conn, error) {
	c, err := h.TCPListener.Accept()
	if err != nil && h.stopped.Load() {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, io.EOF
		}
	}
	return c, err
}

func (h *handOff) Close() error { return nil }

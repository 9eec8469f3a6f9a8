package server

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/accesslog"
	"github.com/eventapi/eventapi/api/middleware/httpmetrics"
	"github.com/eventapi/eventapi/api/middleware/requestid"
	"github.com/eventapi/eventapi/api/middleware/route"
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
// Retry-After, in its surface's envelope (a v1 one with its Deprecation
// and Sunset headers, v1Sunset the date). Every answer closes its
// connection. Each request gets its request id and is counted in the
// request-duration histogram and written to the access log, as the
// service's are, except a request this server cannot read (a header block
// past the read buffer, a request line it cannot parse, a body that does
// not arrive): that one gets Fiber's refusal in the v2 envelope, neither
// counted nor logged, since the service's guard (guard.go), which answers
// those in their surface's envelope, is not installed here; only the probes have a route (http_route), the service's
// routes being built once the database answers. stop ends it and hands ln
// back, open, for the service to serve. ln must be a *net.TCPListener (a
// listener of another kind is handed back at once, unserved).
func ServeWhileStarting(ln net.Listener, log *slog.Logger, v1Sunset time.Time) (stop func()) {
	tcp, ok := ln.(*net.TCPListener)
	if !ok {
		return func() {}
	}
	errorHandler := v1Headers(rest.ErrorHandler(log), v1Sunset)
	// The service's read limits (newApp), so that a request the service
	// would read is read here too.
	app := fiber.New(fiber.Config{DisableStartupMessage: true, DisableKeepalive: true, ReadTimeout: readTimeout,
		ErrorHandler: errorHandler, ReadBufferSize: readBufferSize, BodyLimit: rest.BodyLimit,
		DisablePreParseMultipartForm: true})
	routes := route.New(app)
	app.Use(requestid.New())
	app.Use(httpmetrics.New(httpmetrics.Config{ErrorHandler: errorHandler, Routes: routes}))
	app.Use(accesslog.New(accesslog.Config{Log: log, ErrorHandler: errorHandler, Routes: routes}))
	app.Get(livezPath, livez)
	app.Get(readyzPath, func(c *fiber.Ctx) error {
		// The pod's state, not a client refused (readyz); the wait is
		// logged by its retries ("the database is unreachable").
		rest.Unrefused(c)
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "not ready: starting, waiting for PostgreSQL",
			Details:    Readiness{Status: "starting", Postgres: depUnavailable, Redis: depNotChecked},
			RetryAfter: startingRetryAfter}
	})
	app.Use(func(*fiber.Ctx) error { return startingRefusal() })
	// Fiber answers a method it does not know with a plain-text 400
	// before any middleware runs: such a request is answered here as every
	// other one is while starting, in its envelope, counted and logged.
	g := &guardian{app: app, errorHandler: errorHandler, log: log}
	srv := app.Server()
	next := srv.Handler
	srv.Handler = func(fctx *fasthttp.RequestCtx) {
		if !slices.Contains(fiber.DefaultMethods, string(fctx.Method())) {
			g.render(fctx, startingRefusal(), fctx.Time())
			return
		}
		next(fctx)
	}
	h := &handOff{TCPListener: tcp}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := app.Listener(h); err != nil {
			log.Error("the listener while starting stopped", "error", err)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.stopped.Store(true)
			_ = tcp.SetDeadline(time.Now()) // wakes the Accept waiting
			<-served
			h.closeUnused()
			_ = app.ShutdownWithTimeout(handOffWait)
			_ = tcp.SetDeadline(time.Time{})
		})
	}
}

// handOff is a listener ServeWhileStarting can stop serving without
// closing it: once stopped, its Accept reports the end of the listener,
// and its Close does nothing. It keeps the connections it accepted until
// they close.
type handOff struct {
	*net.TCPListener
	stopped atomic.Bool
	mu      sync.Mutex
	open    map[*trackedConn]struct{}
}

func (h *handOff) Accept() (net.Conn, error) {
	c, err := h.TCPListener.Accept()
	if err != nil {
		var ne net.Error
		if h.stopped.Load() && errors.As(err, &ne) && ne.Timeout() {
			return nil, io.EOF
		}
		return nil, err
	}
	t := &trackedConn{Conn: c, owner: h}
	h.mu.Lock()
	if h.open == nil {
		h.open = map[*trackedConn]struct{}{}
	}
	h.open[t] = struct{}{}
	h.mu.Unlock()
	return t, nil
}

func (h *handOff) Close() error { return nil }

// closeUnused closes every open connection that has sent nothing yet,
// without an answer: its client's request goes to the service on a new
// connection. (A read deadline would have the server answer it 408.) One
// whose request arrived is answered and closed by the server, keep-alive
// being off.
func (h *handOff) closeUnused() {
	h.mu.Lock()
	unused := make([]*trackedConn, 0, len(h.open))
	for c := range h.open {
		if !c.used.Load() {
			unused = append(unused, c)
		}
	}
	h.mu.Unlock()
	for _, c := range unused {
		_ = c.Close()
	}
}

// trackedConn leaves its listener's set when it closes, and says whether
// it has read anything.
type trackedConn struct {
	net.Conn
	owner *handOff
	used  atomic.Bool
	once  sync.Once
}

func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.used.Store(true)
	}
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.owner.mu.Lock()
		delete(c.owner.open, c)
		c.owner.mu.Unlock()
	})
	return c.Conn.Close()
}

// startingRefusal is the answer to a request of the service while the
// process waits for its database.
func startingRefusal() error {
	return &errs.Error{Code: errs.ServiceUnavailable, Message: "the service is starting: it waits for its database",
		RetryAfter: startingRetryAfter}
}

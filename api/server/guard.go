package server

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/accesslog"
	"github.com/eventapi/eventapi/api/middleware/httpmetrics"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// guard installs on app's fasthttp server what Fiber cannot do itself:
// refusals of requests that fail before routing (unknown methods, an
// oversized request line or header block, a body over the limit,
// conflicting framing) answered in the envelope by errorHandler, and the
// per-connection bookkeeping of conn.
func guard(app *fiber.App, errorHandler fiber.ErrorHandler, routes *route.Resolver, log *slog.Logger) {
	srv := app.Server()
	g := &guardian{
		app:          app,
		errorHandler: errorHandler,
		routes:       routes,
		log:          log,
		next:         srv.Handler,
		fiberErrors:  srv.ErrorHandler,
		srv:          srv,
	}
	srv.Handler = g.handle
	srv.HeaderReceived = g.headerReceived
	srv.ErrorHandler = g.handleError
}

// guardian holds what guard's three hooks on the fasthttp server share.
type guardian struct {
	app          *fiber.App
	errorHandler fiber.ErrorHandler
	routes       *route.Resolver
	log          *slog.Logger
	// next is Fiber's handler, fiberErrors Fiber's error handler, both
	// as they were before guard replaced them.
	next        fasthttp.RequestHandler
	fiberErrors func(*fasthttp.RequestCtx, error)
	srv         *fasthttp.Server

	// A request with conflicting framing must not wait for a body: its
	// body read times out at once, and the error handler (which cannot see
	// the headers any more) or, when the body was already read, the handler
	// finds the problem noted under the request's header, the one value
	// both hooks share.
	framing sync.Map // *fasthttp.RequestHeader → problem
}

// record counts an answer given here as the metrics middleware counts the
// others (docs/observability.md, "Metrics") and writes its access line, so
// that its X-Request-Id leads somewhere. fasthttp sets RequestCtx.Time only
// before calling the handler, and it is zero, or the previous request's on
// the connection, before that: a request refused while it was read
// (handleError) is timed from when the connection read its first bytes
// (conn.arrival), and counted with a duration of 0 and logged without one
// when that is not known (a zero start). fasthttp may have reset its method
// and path, which handleError restores from the connection's first bytes
// of the request (conn.requestLine).
func (g *guardian) record(fctx *fasthttp.RequestCtx, start time.Time) {
	var took time.Duration
	if !start.IsZero() {
		took = time.Since(start)
	}
	httpmetrics.RecordRefused(context.Background(), string(fctx.Method()), fctx.Response.StatusCode(), took)
	c := g.app.AcquireCtx(fctx)
	defer g.app.ReleaseCtx(c)
	if id := fctx.Response.Header.Peek(rest.HeaderRequestID); len(id) > 0 {
		c.SetUserContext(telemetry.WithRequestID(c.UserContext(), string(id)))
	}
	accesslog.Write(g.log, c, "", start)
}

// render answers err for a request that arrived at start (zero: unknown).
func (g *guardian) render(fctx *fasthttp.RequestCtx, err error, start time.Time) {
	c := g.app.AcquireCtx(fctx)
	if g.errorHandler(c, err) != nil {
		fctx.SetStatusCode(fiber.StatusInternalServerError)
	}
	g.app.ReleaseCtx(c)
	g.record(fctx, start)
}

// handle is the server's handler: it refuses a request whose framing
// headerReceived found ambiguous, whose target could not be read, or whose
// method Fiber does not know, and hands every other to Fiber.
func (g *guardian) handle(fctx *fasthttp.RequestCtx) {
	spellAsSet(&fctx.Response.Header)
	c, _ := fctx.Conn().(*conn)
	var problem string
	if p, ok := g.framing.LoadAndDelete(&fctx.Request.Header); ok {
		problem = p.(string)
	} else if unparsable(fctx) {
		problem = "the request target could not be read"
	}
	if problem != "" {
		// fasthttp built the URI from the Host and the target: answer in
		// the envelope of the path the request line names.
		restorePath(fctx, c)
	}
	if c != nil {
		c.requestRead()
	}
	if problem != "" {
		fctx.SetConnectionClose()
		g.render(fctx, errs.New(errs.BadRequest, problem), fctx.Time())
		return
	}
	if method := string(fctx.Method()); !slices.Contains(fiber.DefaultMethods, method) {
		fctx.SetConnectionClose()
		// The path as sent, which is what the router matches (Path() would
		// be cleaned and unescaped).
		g.render(fctx, notAllowed(g.routes, method, string(fctx.URI().PathOriginal())), fctx.Time())
		return
	}
	g.next(fctx)
}

// headerReceived runs once a request's headers are read: a request whose
// version or framing is refused gets a body read that times out at once,
// and the problem noted for handle or handleError.
func (g *guardian) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	// A problem noted for an earlier request on this header (fasthttp
	// reuses it for every request of a connection, and then for other
	// connections) that neither hook took is not this request's: that
	// request's connection failed before fasthttp read its body, as when
	// the client reset it before "100 Continue" was written.
	g.framing.Delete(h)
	problem := versionProblem(h)
	if problem == "" {
		problem = framingProblem(h)
	}
	if problem != "" {
		g.framing.Store(h, problem)
		return fasthttp.RequestConfig{ReadTimeout: time.Nanosecond}
	}
	settleExpectation(h, g.srv.MaxRequestBodySize)
	return fasthttp.RequestConfig{}
}

// handleError is the server's error handler, for a request fasthttp could
// not read to its end.
func (g *guardian) handleError(fctx *fasthttp.RequestCtx, err error) {
	// No byte of a request arrived before the read timeout: there is no
	// request to answer. The connection is closed as an idle keep-alive
	// one is, so that the 408 fasthttp would write next is never taken by
	// a client that opened the connection ahead of need for the answer to
	// the request it sends later.
	c, isConn := fctx.Conn().(*conn)
	if isConn && isTimeout(err) && c.nothingRead() {
		_ = c.Conn.Close()
		return
	}
	spellAsSet(&fctx.Response.Header)
	var arrived time.Time
	if isConn {
		arrived = c.arrival()
		// The request was not read to its end: let the client read the
		// answer before the connection closes.
		c.lingerOnClose()
		// fasthttp may have reset the request (to GET /): restore its
		// method and target as they were read, so that it is answered in
		// the envelope of the surface it was sent to and its access line
		// names it.
		if method, target := c.requestLine(); method != "" && isReset(&fctx.Request.Header) {
			fctx.Request.Header.SetMethod(method)
			fctx.Request.SetRequestURI(target)
		}
	}
	// The problem is this request's when its body read timed out at once,
	// as headerReceived asked; a request whose headers fasthttp could not
	// read never reached headerReceived, so a problem found for it is
	// stale, and only removed.
	if problem, ok := g.framing.LoadAndDelete(&fctx.Request.Header); ok && isTimeout(err) {
		g.render(fctx, errs.New(errs.BadRequest, problem.(string)), arrived)
		return
	}
	if e := refuseUnread(fctx, err); e != nil {
		g.render(fctx, e, arrived)
		return
	}
	g.fiberErrors(fctx, err)
	g.record(fctx, arrived)
}

// spellAsSet sends the answer's header names as the code spells them
// (X-RateLimit-Limit, ETag) instead of fasthttp's normalized form
// (X-Ratelimit-Limit, Etag), so the wire matches the API's documents.
// Names are case-insensitive (RFC 9110, 5.1), but a client that looks one
// up in a raw map, or a person reading curl's output against the docs,
// meets the documented spelling. Every name is therefore set in one
// spelling: the constants of api/rest and Fiber's (docs/decisions.md,
// "Header names"). fasthttp resets the setting with each response, so it
// is set for every request. It is set for one refused while it was read
// too, though today's refusals carry no name whose spelling it changes
// (X-Request-Id and fasthttp's own): a header added to them later keeps
// its spelling.
func spellAsSet(h *fasthttp.ResponseHeader) { h.DisableNormalizing() }

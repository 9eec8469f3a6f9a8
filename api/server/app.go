// Package server builds the Fiber application in one place, so the order of
// the middleware and the public and protected route groups can be read top to
// bottom, and runs it with graceful draining.
package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/changes"
	"github.com/eventapi/eventapi/api/clients"
	"github.com/eventapi/eventapi/api/crew"
	"github.com/eventapi/eventapi/api/equipment"
	"github.com/eventapi/eventapi/api/events"
	"github.com/eventapi/eventapi/api/invoices"
	"github.com/eventapi/eventapi/api/middleware/accesslog"
	"github.com/eventapi/eventapi/api/middleware/compress"
	"github.com/eventapi/eventapi/api/middleware/etag"
	"github.com/eventapi/eventapi/api/middleware/httpmetrics"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/middleware/ratelimit"
	"github.com/eventapi/eventapi/api/middleware/recoverer"
	"github.com/eventapi/eventapi/api/middleware/requestid"
	reqlog "github.com/eventapi/eventapi/api/middleware/requestlog"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/middleware/tracing"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/picklists"
	"github.com/eventapi/eventapi/api/planning"
	"github.com/eventapi/eventapi/api/quotes"
	"github.com/eventapi/eventapi/api/requestlogs"
	"github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/rest/bulkhead"
	"github.com/eventapi/eventapi/api/storage"
	v1 "github.com/eventapi/eventapi/api/v1"
	"github.com/eventapi/eventapi/api/vehicles"
	"github.com/eventapi/eventapi/api/webhooks"
	"github.com/eventapi/eventapi/platform/clientip"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Deps are the process-wide dependencies of the app.
type Deps struct {
	DB      *bun.DB
	Auth    *tenancy.Authenticator
	Edge    edge.Store
	Cursors *storage.Cursors
	Log     *slog.Logger
	// RateWindow is the rate-limit window; V1Limit and V2Limit the defaults per window.
	RateWindow time.Duration
	// RequestTimeout bounds each API request's context (0: none).
	RequestTimeout   time.Duration
	V1Limit, V2Limit int
	// V1Sunset is sent in the Sunset header of v1 responses (zero: none).
	V1Sunset time.Time
	// Ready reports whether PostgreSQL answers (for /readyz).
	Ready func(ctx context.Context) error
	// Redis, when set, reports whether Redis answers; /readyz shows it
	// without depending on it.
	Redis func(ctx context.Context) error
	// Drain is the shutdown state (/readyz, Connection: close); nil makes one.
	Drain *Drain
	// Routes, when set, registers extra protected v2 routes (tests use it).
	Routes func(v2 fiber.Router)
	// RequestLog receives a record of every request that reaches
	// authentication (nil: nothing is logged).
	RequestLog reqlog.Sink
	// TrustedProxies name the proxies whose X-Forwarded-For gives the
	// request log's client address (none: the socket's peer).
	TrustedProxies clientip.Trusted
	// FailOpens, when set, counts the requests both rate limiters admitted
	// without a decision because the edge store failed.
	FailOpens *atomic.Int64
	// Webhooks configures the webhook endpoints' handlers.
	Webhooks webhooks.Options
	// JSONEncoder renders response bodies (nil: rest.Encode).
	JSONEncoder func(any) ([]byte, error)
	// LargeReads bounds the large responses built at once (nil: no bound).
	LargeReads *bulkhead.Slots
	// Writes bounds the writes the process runs at once, and each
	// organization's share of them (bulkhead.NewWrites: bulkhead.WriteSlots
	// of the pool, bulkhead.WritesPerOrganization of those for one
	// organization; nil: no bound; writeSlot).
	Writes *bulkhead.Slots
	// Responses seals the responses kept for Idempotency-Key replays
	// (ResponseSealer); required.
	Responses *seal.Sealer
}

// exactPaths makes cfg serve paths exactly as the OpenAPI documents write
// them: /API/V2/EVENTS and /api/v2/events/ are no route (404), where Fiber's
// defaults served them as aliases, which also made a retry through an alias
// a different request to Idempotency-Key (docs/decisions.md, "Paths").
func exactPaths(cfg fiber.Config) fiber.Config {
	cfg.CaseSensitive, cfg.StrictRouting = true, true
	return cfg
}

// New builds the app. Middleware order matters:
//
//  1. the drain marker first, so every request's context descends from the
//     drain's and every response gets Connection: close once the process is
//     stopping (drain.go); then the request id, so every later log line,
//     span and error carries it;
//  2. recover next, so a panic anywhere below becomes a logged 500 envelope;
//  3. the OTel span, the duration histogram and the access log wrap
//     everything that does real work, and render errors themselves so they
//     record the final status, a handler's panic too (a second recoverer
//     sits right below them); below
//     them the body is gzipped for clients that accept it, so they time the
//     compression and the request log and idempotency records below keep
//     the plain body;
//  4. the body limit is enforced by Fiber before any handler runs (rest.BodyLimit);
//  5. auth resolves the organization before the rate limiter, which buckets
//     per organization, and before idempotency, whose keys are per
//     organization; a request refused by auth is never counted or stored;
//  6. a v2 read's ETag is computed below the request log, so the log
//     records a 304, and below compression, so it hashes the plain body;
//  7. a new webhook URL is resolved before idempotency opens the request's
//     transaction, so a slow DNS lookup holds no connection and no snapshot
//     (webhooks.CheckURLFirst);
//  8. a write's slot of the write bulkhead (writeSlot) is taken after that
//     lookup, which then holds no slot, and before idempotency opens the
//     request's transaction, so a write waiting for a slot holds no pool
//     connection; a keyed write the middleware takes over, when no slot is
//     free at once, takes its slot in the middleware's BeforeTx instead
//     (keyedWrites). On v1 it is the last middleware before the handlers.
//
// v2: deadline → request log → auth → rate limit (per organization) → ETag
// → JSON body → one value per query parameter → query reads tracked →
// webhook URL lookup → write slot → idempotency → routes (scope check,
// handler). v1: deadline → deprecation → request log → auth → rate limit
// (per key) → conditional writes refused (etag.RefuseConditions) → JSON
// body → one value per query parameter → write slot → routes.
//
// The app's background work (the Idempotency-Key middleware's purge and
// orphans' releaser) ends when the app shuts down (App.Shutdown).
func New(d Deps) *fiber.App {
	app, stop := build(d)
	app.Hooks().OnShutdown(func() error { stop(); return nil })
	return app
}

// build is New without the shutdown hook: stop ends the app's background
// work and waits for it (Service.Close calls it).
func build(d Deps) (app *fiber.App, stop func()) {
	errorHandler := v1Headers(rest.ErrorHandler(d.Log), d.V1Sunset)
	if d.Drain == nil {
		d.Drain = &Drain{}
	}
	if d.JSONEncoder == nil {
		d.JSONEncoder = rest.Encode
	}
	app = newApp(d.JSONEncoder, errorHandler)
	routes := route.New(app)
	guard(app, errorHandler, routes, d.Log)
	useEdge(app, d, errorHandler, routes)

	// Public: probes and the API description.
	app.Get(livezPath, livez)
	app.Get(readyzPath, readyz(readiness{postgres: d.Ready, redis: d.Redis, drain: d.Drain, log: d.Log}))
	openapi.Routes(app)
	openapi.V1Routes(app, d.V1Sunset)
	app.Use(publicMethods(routes))

	env := &rest.Env{DB: d.DB, Cursors: d.Cursors, Log: d.Log, LargeReads: d.LargeReads}
	keys := mountV2(app, d, env, errorHandler, routes)
	mountV1(app, d, env, errorHandler, routes)

	// Last: anything unmatched is 405 when the path exists with another
	// method, else 404, both in the envelope.
	app.Use(fallback(routes))
	return app, keys.Close
}

// newApp is the Fiber app with the service's limits and timeouts.
func newApp(encode func(any) ([]byte, error), errorHandler fiber.ErrorHandler) *fiber.App {
	return fiber.New(exactPaths(fiber.Config{
		AppName:               "eventapi",
		JSONEncoder:           encode,
		Immutable:             true,
		BodyLimit:             rest.BodyLimit,
		ErrorHandler:          errorHandler,
		DisableStartupMessage: true,
		ReadTimeout:           readTimeout,
		WriteTimeout:          writeTimeout,
		IdleTimeout:           120 * time.Second,
		// The request line and headers must fit; refuse.go answers 414/431
		// beyond their limits, in the envelope.
		ReadBufferSize: readBufferSize,
		// The service never reads forms. Left on, fasthttp parses a
		// multipart body while reading the request, and one that does not
		// parse fails there, after the request (path included) was reset:
		// a generic 400 in the v2 envelope, even on v1. Off, the body is
		// read as bytes and refuse answers 415 like any other body that is
		// not JSON.
		DisablePreParseMultipartForm: true,
	}))
}

// useEdge installs the middlewares every request passes, public or not.
func useEdge(app *fiber.App, d Deps, errorHandler fiber.ErrorHandler, routes *route.Resolver) {
	app.Use(d.Drain.serve) // first: every request's context descends from the drain's
	app.Use(requestid.New())
	// Two recoverers: the outer one for a panic in the middlewares below
	// it, the inner one for a panic in a handler, turned into the 500
	// that tracing, the metrics and the access log then record like any
	// other error (past all three, a panic left no span status, no
	// duration sample and no access line).
	recovered := recoverer.New(recoverer.Config{Log: d.Log})
	app.Use(recovered)
	app.Use(tracing.New(tracing.Config{ErrorHandler: errorHandler, Routes: routes, Untraced: probePaths}))
	app.Use(httpmetrics.New(httpmetrics.Config{ErrorHandler: errorHandler, Routes: routes}))
	app.Use(accesslog.New(accesslog.Config{Log: d.Log, ErrorHandler: errorHandler, Routes: routes}))
	app.Use(recovered)
	app.Use(compress.New(compress.Config{}))
	app.Use(refuse)
}

// requestLogged is the request log's middleware for one API version.
func requestLogged(d Deps, version string, errorHandler fiber.ErrorHandler, routes *route.Resolver) fiber.Handler {
	return reqlog.New(reqlog.Config{Sink: d.RequestLog, Routes: routes, ErrorHandler: errorHandler, APIVersion: version,
		TrustedProxies: d.TrustedProxies})
}

// mountV2 mounts the v2 API: per-organization rate limit, one value per
// query parameter, the parameters each handler reads (for the warning
// naming those a GET ignored), then Idempotency-Key on writes, after what
// must happen before its transaction opens: a webhook URL's DNS check and
// the write's slot (and, inside it, before the transaction, a keyed
// write's slots when it waits for them). It returns the Idempotency-Key
// middleware, for build to close.
func mountV2(app *fiber.App, d Deps, env *rest.Env, errorHandler fiber.ErrorHandler, routes *route.Resolver) *idempotency.Middleware {
	slot, keys := keyedWrites(d.Writes, idempotency.Config{Store: d.Edge, DB: d.DB, Log: d.Log, Sealer: d.Responses, Serves: routes.Serves,
		OptionalBody: webhooks.OptionalBody(routes), LockTTL: idempotency.LockTTLFor(d.RequestTimeout), ErrorHandler: errorHandler,
		Authorize: documentedScopes(routes)},
		largeWriteSlot(env, routes))
	v2 := app.Group(rest.V2Prefix, deadline(d.RequestTimeout), requestLogged(d, "v2", errorHandler, routes), auth.Middleware(d.Auth),
		ratelimit.New(ratelimit.Config{Name: "v2", Store: d.Edge, Window: d.RateWindow, Log: d.Log, Bucket: v2Bucket(d.V2Limit), FailOpens: d.FailOpens}),
		etag.New(routes.Serves),
		jsonBody(routes.Serves),
		rest.SingleQueryValues(routes.Serves),
		rest.TrackQueryReads,
		webhooks.CheckURLFirst(d.Webhooks, routes),
		slot,
		keys.Handle,
	)
	v2.Get("/health", health)
	events.Routes(v2, env)
	clients.Routes(v2, env)
	crew.Routes(v2, env)
	equipment.Routes(v2, env)
	vehicles.Routes(v2, env)
	reservations.Routes(v2, env)
	quotes.Routes(v2, env)
	invoices.Routes(v2, env)
	picklists.Routes(v2, env)
	planning.Routes(v2, env)
	requestlogs.Routes(v2, env)
	changes.Routes(v2, env)
	webhooks.Routes(v2, env, d.Webhooks)
	if d.Routes != nil {
		d.Routes(v2)
	}
	return keys
}

// mountV1 mounts the v1 API: per-key rate limit, the refusal of
// conditional writes, deprecation headers, its own envelope.
func mountV1(app *fiber.App, d Deps, env *rest.Env, errorHandler fiber.ErrorHandler, routes *route.Resolver) {
	v1g := app.Group(rest.V1Prefix, deadline(d.RequestTimeout), deprecated(d.V1Sunset), requestLogged(d, "v1", errorHandler, routes), auth.Middleware(d.Auth),
		ratelimit.New(ratelimit.Config{Name: "v1", Store: d.Edge, Window: d.RateWindow, Log: d.Log, Bucket: v1Bucket(d.V1Limit), FailOpens: d.FailOpens}),
		etag.RefuseConditions(routes.Serves),
		jsonBody(routes.Serves),
		rest.SingleQueryValues(routes.Serves),
		writeSlot(d.Writes, nil),
	)
	v1.Routes(v1g, env)
}

func v2Bucket(def int) func(c *fiber.Ctx) (string, int) {
	return func(c *fiber.Ctx) (string, int) {
		p := tenancy.MustFromContext(c.UserContext())
		limit := def
		if p.RateLimit > 0 {
			limit = p.RateLimit
		}
		return "v2:org:" + p.OrganizationID.String(), limit
	}
}

func v1Bucket(def int) func(c *fiber.Ctx) (string, int) {
	return func(c *fiber.Ctx) (string, int) {
		return "v1:key:" + tenancy.MustFromContext(c.UserContext()).KeyID.String(), def
	}
}

// deadline bounds the request's context by d (none when d is 0): a query
// or Redis command still running then is cancelled, the connection closed,
// and the request answered 503 service_unavailable (database.Error), where
// a connection that stalls without failing (a frozen PgBouncer) held it
// until the stall ended.
func deadline(d time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if d <= 0 {
			return c.Next()
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), d)
		defer cancel()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// deprecated marks every response of the v1 group Deprecated, with its
// Sunset date.
func deprecated(sunset time.Time) fiber.Handler {
	mark := rest.Deprecated(sunset)
	return func(c *fiber.Ctx) error {
		mark(c)
		return c.Next()
	}
}

// v1Headers adds the same marks to every error answered on a v1 path,
// including those answered before the v1 group runs (413, 414, 415, 431,
// ambiguous framing): every v1 response carries them (docs/v1.md).
func v1Headers(next fiber.ErrorHandler, sunset time.Time) fiber.ErrorHandler {
	mark := rest.Deprecated(sunset)
	return func(c *fiber.Ctx, err error) error {
		if rest.IsV1Path(c.Path()) {
			mark(c)
		}
		return next(c, err)
	}
}

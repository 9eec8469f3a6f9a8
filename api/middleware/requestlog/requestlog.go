// Package requestlog records every request that reaches authentication in
// the request log (platform/requestlog): it sits in front of the auth
// middleware of the /api/v1 and /api/v2 groups, renders errors itself so the
// final status is known, and hands one record to the buffered writer, which
// never blocks the request.
package requestlog

import (
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/clientip"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// Sink receives the records (a *requestlog.Writer).
type Sink interface{ Add(requestlog.Record) }

// Config configures the middleware.
type Config struct {
	Sink   Sink
	Routes *route.Resolver
	// ErrorHandler renders an error so the record has the final status
	// (rest.RenderError).
	ErrorHandler fiber.ErrorHandler
	// APIVersion is "v1" or "v2".
	APIVersion string
	// TrustedProxies name the proxies whose X-Forwarded-For gives the
	// record's ip (none: the socket's peer).
	TrustedProxies clientip.Trusted
}

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	if cfg.Sink == nil {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	l := &logger{cfg: cfg}
	return func(c *fiber.Ctx) (err error) {
		start := rest.RequestArrival(c)
		defer func() {
			// A panic is re-raised for the recoverer, which answers it as
			// an internal error: recorded with that code and its status.
			if p := recover(); p != nil {
				cfg.Sink.Add(l.record(c, start, rest.Status(errs.Internal), string(errs.Internal)))
				panic(p)
			}
		}()
		err, _ = rest.RenderError(c, cfg.ErrorHandler, c.Next())
		status := c.Response().StatusCode()
		code := rest.ErrorCodeOf(c)
		if code == "" && status >= 400 {
			code = rest.BodyErrorCode(c.Response().Body())
		}
		cfg.Sink.Add(l.record(c, start, status, code))
		return err
	}
}

// logger is one middleware's state: the shared copies of repeated values
// (intern.go).
type logger struct {
	cfg        Config
	userAgents textInterner
	routes     textInterner
	addrs      addrInterner
	// mutable is whether the app hands out strings over reused buffers
	// (fiber.Config.Immutable off), read at the first request.
	mutableOnce sync.Once
	mutable     bool
}

// record builds the request's record: its id is the request id and its time
// the request's arrival, whose millisecond the id carries, so a record is
// found by request id within one millisecond of the log's time index. The
// record outlives the request (the writer stores it later), so none of its
// strings may point into a buffer the next request reuses: in an app
// without fiber.Config.Immutable, c.Path() does; the organization, key and
// key prefix point into the principal (or, for a revoked or expired key,
// its tenancy.RefusedKey), which the authenticator shares between requests
// and never changes.
func (l *logger) record(c *fiber.Ctx, start time.Time, status int, code string) requestlog.Record {
	l.mutableOnce.Do(func() { l.mutable = !c.App().Config().Immutable })
	path := c.Path()
	if l.mutable {
		path = strings.Clone(path)
	}
	reqID := rest.EnsureRequestID(c)
	r := requestlog.Record{
		CreatedAt:  start,
		RequestID:  reqID,
		Method:     methodOf(c.Method()),
		Path:       path,
		Status:     status,
		DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		APIVersion: l.cfg.APIVersion,
		ErrorCode:  nonEmpty(code),
		IP:         l.clientIP(c),
	}
	if ua := c.Request().Header.UserAgent(); len(ua) > 0 {
		r.UserAgent = l.userAgents.of(ua)
	}
	if l.cfg.Routes != nil {
		if route := l.cfg.Routes.Of(c); route != "" {
			r.Route = l.routes.ofString(route)
		}
	}
	if p, ok := tenancy.FromContext(c.UserContext()); ok {
		r.OrganizationID, r.KeyID = &p.OrganizationID, &p.KeyID
		if p.KeyPrefix != "" {
			r.KeyPrefix = &p.KeyPrefix
		}
	} else if k, ok := tenancy.RefusedKeyOf(c.UserContext()); ok {
		// A revoked or expired key: its organization sees the refusal.
		r.OrganizationID, r.KeyID, r.KeyPrefix = &k.OrganizationID, &k.KeyID, &k.KeyPrefix
	} else if prefix, ok := tenancy.PresentedKey(c.UserContext()); ok {
		r.KeyPrefix = &prefix
	}
	if k := c.Request().Header.Peek(rest.HeaderIdempotencyKey); len(k) > 0 {
		r.IdempotencyKey = nonEmpty(string(k))
	}
	r.IdempotentReplayed = string(c.Response().Header.Peek(rest.HeaderIdempotentReplayed)) == "true"
	r.ID, _ = uuid.Parse(reqID) // the nil uuid on failure: Normalize assigns one
	r.Normalize()
	return r
}

// clientIP is the address of the request's client, through trusted proxies
// (platform/clientip). fasthttp gives a connection that is not TCP the peer
// 0.0.0.0; nil only if it ever gave no address at all.
func (l *logger) clientIP(c *fiber.Ctx) *string {
	peer, ok := netip.AddrFromSlice(c.Context().RemoteIP())
	if !ok {
		return nil
	}
	var forwarded [][]byte
	if len(l.cfg.TrustedProxies) > 0 {
		forwarded = c.Request().Header.PeekAll(clientip.HeaderForwardedFor)
	}
	return l.addrs.of(l.cfg.TrustedProxies.Of(peer, forwarded))
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	kept := s // declared here, so that an empty s costs no allocation
	return &kept
}

package server

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/ratelimit"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// The probes' paths. Their requests make no span (tracing.Config.Untraced),
// nor do /readyz's PostgreSQL and Redis checks: the kubelet sends one every
// few seconds to every pod (docs/observability.md, "Traces and log lines").
const (
	livezPath  = "/livez"
	readyzPath = "/readyz"
)

var probePaths = []string{livezPath, readyzPath}

func livez(c *fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) }

// ReadyTimeout bounds the PostgreSQL check of /readyz. It is far above a
// healthy ping (a millisecond) so that a busy machine does not flap the
// probe, and below the chart's readiness probe timeout (3 s).
const ReadyTimeout = 2 * time.Second

// Readiness is the body of /readyz: 200 while PostgreSQL answers and the
// process is not draining. Redis is reported but never decides, because the
// service runs without it (the limiter fails open and keyed writes get 503).
type Readiness struct {
	// Status is ready, not_ready (PostgreSQL does not answer), draining, or
	// starting (ServeWhileStarting: the process waits for PostgreSQL).
	Status   string `json:"status"`
	Postgres string `json:"postgres"`
	Redis    string `json:"redis"`
	Draining bool   `json:"draining"`
}

// Values of Readiness.Postgres and Readiness.Redis.
const (
	depOK            = "ok"
	depUnavailable   = "unavailable"
	depNotConfigured = "not_configured"
	depNotChecked    = "not_checked"
)

type readiness struct {
	postgres, redis func(ctx context.Context) error
	drain           *Drain
	log             *slog.Logger
}

func readyz(r readiness) fiber.Handler {
	var notReady atomic.Bool
	return func(c *fiber.Ctx) error {
		// A 503 here is the pod's state, not a client refused: it is
		// logged once per change (below), not in the refusals' line.
		rest.Unrefused(c)
		body := Readiness{Status: "ready", Postgres: depNotChecked, Redis: depNotChecked}
		if r.drain.Draining() {
			body.Status, body.Draining = "draining", true
			return &errs.Error{Code: errs.ServiceUnavailable, Message: "not ready: this instance is shutting down",
				Details: body}
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), ReadyTimeout)
		defer cancel()
		redis := make(chan string, 1)
		go func() { s, _ := status(ctx, r.redis); redis <- s }()
		var pgErr error
		body.Postgres, pgErr = status(ctx, r.postgres)
		body.Redis = <-redis
		if body.Postgres == depUnavailable {
			body.Status = "not_ready"
			if !notReady.Swap(true) && r.log != nil {
				r.log.Warn("readiness: not ready: PostgreSQL is unavailable", "error", pgErr.Error(), "redis", body.Redis)
			}
			return &errs.Error{Code: errs.ServiceUnavailable, Message: "not ready: PostgreSQL is unavailable",
				Details: body}
		}
		if notReady.Swap(false) && r.log != nil {
			r.log.Info("readiness: ready again: PostgreSQL answers", "postgres", body.Postgres, "redis", body.Redis)
		}
		return c.JSON(body)
	}
}

// pingTwice pings again, on another connection, when the first ping
// failed before ctx did. A pooled connection the server closed (a
// terminated backend, a restarted PgBouncer) fails its next use once, and
// is then dropped from the pool; the pool checks an idle connection before
// handing it out only after a second of rest, so a probe sent within a
// second of the one before met it and answered 503 for a PostgreSQL that
// was up. A PostgreSQL that is really down fails both.
func pingTwice(ping func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := ping(ctx); err == nil || ctx.Err() != nil {
			return err
		}
		return ping(ctx)
	}
}

// status runs one dependency check and returns its status and, when
// unavailable, why; a nil check is a dependency that is not configured.
// The answer comes by ctx's deadline (ReadyTimeout) even when the check
// returns later: a check cancelled on a stalled connection goes on closing
// it (about a second more for PostgreSQL's), which kept the probe past its
// bound; it finishes on its own goroutine.
func status(ctx context.Context, check func(ctx context.Context) error) (string, error) {
	if check == nil {
		return depNotConfigured, nil
	}
	done := make(chan error, 1)
	go func() { done <- check(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			return depUnavailable, err
		}
		return depOK, nil
	case <-ctx.Done():
		return depUnavailable, fmt.Errorf("no answer within %s", ReadyTimeout)
	}
}

// Health is the body of GET /api/v2/health.
type Health struct {
	Status         string     `json:"status"`
	RequestID      string     `json:"request_id"`
	OrganizationID string     `json:"organization_id"`
	Scopes         []string   `json:"scopes"`
	Sandbox        bool       `json:"sandbox"`
	Mode           string     `json:"mode"`
	RateLimit      *RateLimit `json:"rate_limit"`
}

// RateLimit is the caller's current rate-limit bucket.
type RateLimit struct {
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	Reset     string `json:"reset"`
}

func health(c *fiber.Ctx) error {
	p := tenancy.MustFromContext(c.UserContext())
	scopes := make([]string, 0)
	for _, s := range p.Scopes.List() {
		scopes = append(scopes, string(s))
	}
	h := Health{Status: "ok", RequestID: rest.EnsureRequestID(c), OrganizationID: p.OrganizationID.String(),
		Scopes: scopes, Sandbox: p.Sandbox, Mode: string(p.Mode)}
	if d, ok := ratelimit.BucketFromContext(c.UserContext()); ok {
		h.RateLimit = &RateLimit{Limit: d.Limit, Remaining: d.Remaining, Reset: d.Reset.UTC().Format(time.RFC3339)}
	}
	return rest.OK(c, h)
}

// Package auth is the HTTP side of tenancy: the Fiber middleware that turns a
// bearer key into the request's principal, and the scope check each route
// puts in front of its handler.
package auth

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// Middleware authenticates the bearer key of every request and stores the
// principal in the request's user context. Failures are returned as
// *errs.Error for the app's error handler to render. A request answered
// below 400 counts as the key's use (last_used_at).
//
// A request must carry one Authorization header: with two, which key acts
// would depend on which one a reader takes (the server the first, a proxy
// or a log perhaps the other), so it is refused like a missing key.
func Middleware(a *tenancy.Authenticator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(c.Request().Header.PeekAll(fiber.HeaderAuthorization)) > 1 {
			return errTwoKeys
		}
		raw, ok := bearer(c.Get(fiber.HeaderAuthorization))
		if !ok {
			return tenancy.ErrInvalidCredentials
		}
		ctx := c.UserContext()
		p, refused, err := a.Identify(ctx, raw)
		if err != nil {
			if _, perr := apikey.Parse(raw); perr == nil {
				// Cloned: raw points into the request's header buffer,
				// and the request log keeps the prefix past the request.
				ctx = tenancy.WithPresentedKey(ctx, strings.Clone(apikey.Prefix(raw)))
			}
			if refused != nil {
				ctx = tenancy.WithRefusedKey(ctx, refused)
			}
			c.SetUserContext(ctx)
			return err
		}
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			span.SetAttributes(
				attribute.String("eventapi.organization_id", p.OrganizationID.String()),
				attribute.String("eventapi.api_key_id", p.KeyID.String()),
				attribute.Bool("eventapi.sandbox", p.Sandbox),
			)
		}
		c.SetUserContext(tenancy.WithPrincipal(ctx, p))
		if err := c.Next(); err != nil {
			return err // rendered as an error: not a successful request
		}
		if c.Response().StatusCode() < fiber.StatusBadRequest {
			a.Used(p)
		}
		return nil
	}
}

var errTwoKeys = errs.New(errs.InvalidCredentials, "send exactly one Authorization header")

func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(h[len(prefix):]), true
}

// Require allows the request when the principal holds any of scopes; else
// 403 insufficient_scope with details.required listing them (see Check). The
// set is built once per route, not per request.
func Require(scopes ...tenancy.Scope) fiber.Handler {
	need := tenancy.NewScopeSet(scopes...)
	return func(c *fiber.Ctx) error {
		if err := check(c.UserContext(), need, scopes); err != nil {
			return err
		}
		return c.Next()
	}
}

// Check returns nil when the principal of ctx holds any of scopes. Otherwise
// it returns the *errs.Error to answer: 401 when ctx has no principal, else
// 403 insufficient_scope with details.required listing scopes. Route guards
// (Require) and checks inside a handler (the scopes of an ?expand value) use
// it alike.
func Check(ctx context.Context, scopes ...tenancy.Scope) error {
	return check(ctx, tenancy.NewScopeSet(scopes...), scopes)
}

// check is Check with the set of scopes already built.
func check(ctx context.Context, need tenancy.ScopeSet, scopes []tenancy.Scope) error {
	p, ok := tenancy.FromContext(ctx)
	if !ok {
		return tenancy.ErrInvalidCredentials
	}
	if p.Scopes&need != 0 {
		passed(ctx, need)
		return nil
	}
	names := tenancy.ScopeNames(scopes)
	return &errs.Error{Code: errs.InsufficientScope, Message: lacking(names),
		Details: map[string]any{"required": names}}
}

// lacking is the message of a key that holds none of the scopes named:
// it names them, since v1's envelope has no details to carry them.
func lacking(names []string) string {
	if len(names) == 1 {
		return "the API key lacks the scope " + names[0]
	}
	return "the API key lacks a required scope: it needs one of " + strings.Join(names, ", ")
}

package webhooks

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/webhook"
	"github.com/eventapi/eventapi/tenancy"
)

// The routes whose body may carry a URL to check, and the two whose body
// is optional (OptionalBody): the templates route.Resolver names for the
// routes Routes registers under the v2 group (TestPrecheckTemplatesAreRoutes).
const (
	endpointsPath = rest.V2Prefix + "/webhook_endpoints"
	endpointPath  = endpointsPath + "/{id}"
	rotatePath    = endpointPath + "/rotate_secret"
	retryPath     = endpointPath + "/deliveries/{delivery_id}/retry"
)

// OptionalBody reports, through routes, whether a request is a POST of a
// route that reads an absent body as the empty object: a secret rotation
// (every field optional) and a delivery retry (no fields). For the
// Idempotency-Key middleware: on such a route no body and `{}` are one
// request, so a retry of either form replays the other's answer
// (idempotency.Config.OptionalBody).
func OptionalBody(routes *route.Resolver) func(method, path string) bool {
	return func(method, path string) bool {
		if method != fiber.MethodPost {
			return false
		}
		switch routes.Match(method, path) {
		case rotatePath, retryPath:
			return true
		}
		return false
	}
}

// resolveTimeout bounds the DNS lookup of a new URL.
const resolveTimeout = 5 * time.Second

// checkedURL is the verdict on one URL, reached before the request's
// transaction opened.
type checkedURL struct {
	url   string
	issue webhook.URLIssue
}

type checkedKey struct{}

// CheckURLFirst checks the url of a POST or PATCH body of the endpoint
// routes, DNS lookup included, before the Idempotency-Key middleware opens
// the request's transaction: a lookup takes up to resolveTimeout, and a
// transaction open that long holds a pool connection and the change feed's
// horizon (docs/changes.md) for every organization. Mount it after auth and
// the rate limiter, so that only an admitted key with webhooks:write makes
// the service resolve a name, and before the idempotency middleware. The
// handler uses the verdict when the URL it decodes is the one checked here,
// and checks the URL itself otherwise.
func CheckURLFirst(opt Options, routes *route.Resolver) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if opt.AllowPrivate || !mayRegister(c, routes) {
			return c.Next()
		}
		// The URL as the handler will read it (decode): the same parser,
		// key and rules, so no other spelling of the body (a "URL" key, a
		// repeated "url") gets a URL past this check into the handler's.
		in, err := rest.ParseObject(c.Body())
		if err != nil {
			return c.Next() // the handler answers what is wrong with the body
		}
		u := in.String("url", updateRules.Get("url"))
		if in.HasIssues() || !u.Set || u.Null || u.Value == "" {
			return c.Next()
		}
		ctx := c.UserContext()
		issue := checkURL(ctx, u.Value, opt)
		c.SetUserContext(context.WithValue(ctx, checkedKey{}, checkedURL{url: u.Value, issue: issue}))
		return c.Next()
	}
}

// mayRegister reports whether c writes an endpoint with a key allowed to.
func mayRegister(c *fiber.Ctx, routes *route.Resolver) bool {
	m := c.Method()
	if m != fiber.MethodPost && m != fiber.MethodPatch {
		return false
	}
	path := c.Path()
	if len(path) < len(endpointsPath) || !strings.EqualFold(path[:len(endpointsPath)], endpointsPath) {
		return false
	}
	p, ok := tenancy.FromContext(c.UserContext())
	if !ok || !p.Scopes.Has(tenancy.WebhooksWrite) {
		return false
	}
	switch routes.Match(m, path) {
	case endpointsPath:
		return m == fiber.MethodPost
	case endpointPath:
		// An update needs webhooks:read as well (it answers the endpoint):
		// a key the route will refuse gets no DNS lookup first.
		return m == fiber.MethodPatch && p.Scopes.Has(tenancy.WebhooksRead)
	}
	return false
}

// urlIssue returns what is wrong with raw: the verdict CheckURLFirst
// reached when it checked this URL, else a fresh check.
func urlIssue(ctx context.Context, raw string, opt Options) webhook.URLIssue {
	if v, ok := ctx.Value(checkedKey{}).(checkedURL); ok && v.url == raw {
		return v.issue
	}
	return checkURL(ctx, raw, opt)
}

// checkURL checks raw with the lookup bounded by resolveTimeout.
func checkURL(ctx context.Context, raw string, opt Options) webhook.URLIssue {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	return webhook.CheckURL(ctx, raw, opt.AllowPrivate, opt.Resolver)
}

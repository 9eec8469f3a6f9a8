// Package webhooks serves an organization's webhook endpoints and their
// deliveries (docs/webhooks.md): POST/GET/PATCH/DELETE
// /api/v2/webhook_endpoints (the signing secret is shown once, on POST),
// GET /api/v2/webhook_endpoints/{id}/deliveries and
// POST .../deliveries/{delivery_id}/retry, and
// POST /api/v2/webhook_endpoints/{id}/rotate_secret (a new secret, shown in
// its answer, the replaced one signing beside it for a grace period), with
// the webhooks:read and webhooks:write scopes. Sending is package
// delivery's.
package webhooks

import (
	"net"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Options is what the handlers need beyond rest.Env.
type Options struct {
	// Sealer encrypts new signing secrets.
	Sealer *seal.Sealer
	// AllowPrivate accepts http URLs and non-public addresses
	// (EVENTAPI_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
	// Resolver resolves endpoint hosts (nil: the system resolver).
	Resolver *net.Resolver
}

type handlers struct {
	env *rest.Env
	opt Options
}

// Routes registers the endpoints on r (the authenticated /api/v2 group).
// A PATCH and a rotation answer the endpoint and a retry the delivery, so
// they need webhooks:read as well as webhooks:write (the rule of
// crud.Mount); a DELETE answers 204 and needs webhooks:write alone.
func Routes(r fiber.Router, env *rest.Env, opt Options) {
	h := handlers{env: env, opt: opt}
	read := auth.Require(tenancy.WebhooksRead)
	write := auth.Require(tenancy.WebhooksWrite)
	r.Get("/webhook_endpoints", read, h.list)
	r.Post("/webhook_endpoints", write, h.create)
	r.Get("/webhook_endpoints/:id", read, rest.NoExpansions, h.get)
	r.Patch("/webhook_endpoints/:id", write, read, h.update)
	r.Delete("/webhook_endpoints/:id", write, h.delete)
	r.Post("/webhook_endpoints/:id/rotate_secret", write, read, h.rotate)
	r.Get("/webhook_endpoints/:id/deliveries", read, h.deliveries)
	r.Post("/webhook_endpoints/:id/deliveries/:delivery_id/retry", write, read, h.retry)
}

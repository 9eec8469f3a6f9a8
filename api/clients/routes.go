// Package clients serves the clients of an organization over HTTP: input.go
// (create and patch decoding), handlers.go and routes.go, over the queries of
// storage/clients. It is the reference shape of a resource package.
package clients

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.ClientReaders

// Routes registers the client endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	resource(env).Mount(r, "/clients", ReadScopes, []tenancy.Scope{tenancy.ClientsWrite}, list(env))
}

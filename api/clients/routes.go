package clients

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the client endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	read := tenancy.Require(tenancy.ClientsRead)
	write := tenancy.Require(tenancy.ClientsWrite)
	resource(env).Mount(r, "/clients", read, write, list(env))
}

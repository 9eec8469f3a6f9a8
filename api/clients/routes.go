package clients

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the client endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	read := tenancy.Require(tenancy.ClientsRead)
	write := tenancy.Require(tenancy.ClientsWrite)
	r.Get("/clients", read, h.list)
	r.Post("/clients", write, h.create)
	r.Get("/clients/:id", read, h.get)
	r.Patch("/clients/:id", write, h.patch)
}

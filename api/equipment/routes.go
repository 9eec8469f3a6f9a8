// Package equipment serves the equipment of an organization and its
// equipment categories: models, org-scoped stores and v2 handlers, plus Get
// and Expand for packages that check or inline equipment.
package equipment

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the equipment and equipment category endpoints on r (the
// authenticated /api/v2 group), under equipment:read and equipment:write.
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	ch := categoryHandlers{env: env}
	read := tenancy.Require(tenancy.EquipmentRead)
	write := tenancy.Require(tenancy.EquipmentWrite)
	r.Get("/equipment", read, h.list)
	r.Post("/equipment", write, h.create)
	r.Get("/equipment/:id", read, h.get)
	r.Patch("/equipment/:id", write, h.patch)
	r.Get("/equipment_categories", read, ch.list)
	r.Post("/equipment_categories", write, ch.create)
	r.Get("/equipment_categories/:id", read, ch.get)
	r.Patch("/equipment_categories/:id", write, ch.patch)
}

// Package equipment serves the equipment of an organization and its
// equipment categories: models, org-scoped stores and v2 handlers, plus Get
// and Expand for packages that check or inline equipment.
package equipment

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the equipment and equipment category endpoints on r (the
// authenticated /api/v2 group), under equipment:read and equipment:write.
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	read := tenancy.Require(tenancy.EquipmentRead)
	write := tenancy.Require(tenancy.EquipmentWrite)
	h.resource().Mount(r, "/equipment", read, write, h.list)
	categories := crud.List[Category](env, crud.Unfiltered("equipment_categories:", ListCategories))
	categoryResource(env).Mount(r, "/equipment_categories", read, write, categories)
}

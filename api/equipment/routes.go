// Package equipment serves the equipment of an organization and its
// equipment categories: v2 handlers over storage/equipment.
package equipment

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/tenancy"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.EquipmentReaders

// Routes registers the equipment and equipment category endpoints on r (the
// authenticated /api/v2 group), under equipment:read and equipment:write.
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	write := []tenancy.Scope{tenancy.EquipmentWrite}
	h.resource().Mount(r, "/equipment", ReadScopes, write, h.list)
	categories := crud.List[equipment.Category](env, crud.Unfiltered("equipment_categories", equipment.ListCategories))
	categoryResource(env).Mount(r, "/equipment_categories", ReadScopes, write, categories)
}

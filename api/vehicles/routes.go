// Package vehicles serves the fleet vehicles of an organization: model,
// org-scoped store, v2 handlers, and Assignable, the check other packages
// run before assigning a vehicle to a reservation.
package vehicles

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the vehicle endpoints on r (the authenticated /api/v2
// group). Vehicles belong to load planning, so they use the
// equipment_reservations scopes.
func Routes(r fiber.Router, env *rest.Env) {
	read := tenancy.Require(tenancy.EquipmentReservationsRead)
	write := tenancy.Require(tenancy.EquipmentReservationsWrite)
	resource(env).Mount(r, "/vehicles", read, write, list(env))
}

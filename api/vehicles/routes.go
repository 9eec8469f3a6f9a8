// Package vehicles serves the fleet vehicles of an organization: v2
// handlers over storage/vehicles.
package vehicles

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.VehicleReaders

// Routes registers the vehicle endpoints on r (the authenticated /api/v2
// group). Vehicles belong to load planning, so they use the
// equipment_reservations scopes.
func Routes(r fiber.Router, env *rest.Env) {
	resource(env).Mount(r, "/vehicles", ReadScopes, []tenancy.Scope{tenancy.EquipmentReservationsWrite}, list(env))
}

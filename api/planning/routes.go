// Package planning answers the two questions a load planner asks all day:
// how many units of an equipment record are still free over a window (and
// when it is short), for one record or up to 100 at once, and what a truck
// carries over a window against its payload and cargo volume. The rules live
// in storage/stock (shared with the stock guard) and storage/truckload;
// docs/availability.md describes the endpoints.
package planning

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/tenancy/auth"

	reservationsapi "github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
)

type handlers struct{ env *rest.Env }

// Routes registers the planning endpoints on r (the authenticated /api/v2
// group). They read reservations, so they need a reservation read scope
// (equipment_reservations:read): the scopes that also decide who sees the
// reservation figures in a write's warnings (reservationsapi.MayRead).
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	read := auth.Require(reservationsapi.ReadScopes...)
	// The handlers refuse ?expand themselves, so that one 422 names it
	// beside the other bad parameters (rest.Query).
	r.Get("/equipment/:id/availability", read, h.availability)
	r.Get("/availability", read, h.batchAvailability)
	r.Get("/vehicles/:id/load", read, h.load)
}

// Package reservations serves equipment reservations (truck assignments)
// under the stock guard: v2 handlers over storage/reservations. A write
// locks the equipment row, reads the reservations holding stock in the window
// (the rule of storage/stock, shared with the availability endpoints) and decides in
// one transaction, so stock is never oversold across instances.
package reservations

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.ReservationReaders

// Routes registers the reservation endpoints on r (the authenticated /api/v2
// group). A PATCH needs the read scope as well as the write scope (the rule
// of crud.Mount); a DELETE answers 204 and needs the write scope alone.
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	read := auth.Require(ReadScopes...)
	write := auth.Require(tenancy.EquipmentReservationsWrite)
	r.Get("/equipment_reservations", read, h.list)
	r.Post("/equipment_reservations", write, h.create)
	r.Get("/equipment_reservations/:id", read, h.get)
	r.Patch("/equipment_reservations/:id", write, read, h.patch)
	r.Delete("/equipment_reservations/:id", write, h.delete)
}

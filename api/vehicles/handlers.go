package vehicles

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/vehicles"
)

// resource serves GET, POST and PATCH of vehicles; a PATCH warns of the
// reservations it leaves on the vehicle (warn.go).
func resource(env *rest.Env) crud.Resource[vehicles.Vehicle, storage.Changes] {
	return crud.Resource[vehicles.Vehicle, storage.Changes]{
		Kind: vehicles.Kind, Env: env, Decode: decodeFields,
		Get: vehicles.Get, Create: vehicles.Create, Update: vehicles.Update,
		Warn: warnings,
	}
}

// list serves GET /vehicles: available vehicles only.
func list(env *rest.Env) fiber.Handler {
	return crud.List[vehicles.Vehicle](env, crud.Unfiltered("vehicles:available", vehicles.ListAvailable))
}

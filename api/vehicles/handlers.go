package vehicles

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// resource serves GET, POST and PATCH of vehicles.
func resource(env *rest.Env) crud.Resource[Vehicle, scoped.Changes] {
	return crud.Resource[Vehicle, scoped.Changes]{
		Kind: Kind, Env: env, Decode: decodeFields,
		Get: Get, Create: Create, Update: Update,
	}
}

// list serves GET /vehicles: available vehicles only.
func list(env *rest.Env) fiber.Handler {
	return crud.List[Vehicle](env, crud.Unfiltered("vehicles:available:", ListAvailable))
}

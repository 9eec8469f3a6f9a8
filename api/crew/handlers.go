package crew

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// resource serves GET, POST and PATCH of crew members.
func resource(env *rest.Env) crud.Resource[Member, scoped.Changes] {
	return crud.Resource[Member, scoped.Changes]{
		Kind: Kind, Env: env, Decode: decodeFields,
		Get: Get, Create: Create, Update: Update,
	}
}

// list serves GET /crew_members.
func list(env *rest.Env) fiber.Handler {
	return crud.List[Member](env, crud.Unfiltered("crew_members:", List))
}

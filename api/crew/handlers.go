package crew

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/crew"
)

// resource serves GET, POST and PATCH of crew members.
func resource(env *rest.Env) crud.Resource[crew.Member, storage.Changes] {
	return crud.Resource[crew.Member, storage.Changes]{
		Kind: crew.Kind, Env: env, Decode: decodeFields,
		Get: crew.Get, Create: crew.Create, Update: crew.Update,
	}
}

// list serves GET /crew_members.
func list(env *rest.Env) fiber.Handler {
	return crud.List[crew.Member](env, crud.Unfiltered("crew_members", crew.List))
}

package clients

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// resource serves GET, POST and PATCH of clients.
func resource(env *rest.Env) crud.Resource[Client, scoped.Changes] {
	return crud.Resource[Client, scoped.Changes]{
		Kind: Kind, Env: env, Decode: decodeFields,
		Get: Get, Create: Create, Update: Update,
	}
}

// list serves GET /clients; search matches name or email.
func list(env *rest.Env) fiber.Handler {
	return crud.List[Client](env, func(c *fiber.Ctx, org uuid.UUID) (string, crud.ListFunc[Client], error) {
		search, err := rest.QueryString(c, "search", 200)
		if err != nil {
			return "", nil, err
		}
		return "clients:" + org.String() + ":" + search,
			func(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest) (scoped.Page[Client], error) {
				return List(ctx, db, org, p, ListFilter{Search: search})
			}, nil
	})
}

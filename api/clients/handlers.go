package clients

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/tenancy"
)

// resource serves GET, POST and PATCH of clients.
func resource(env *rest.Env) crud.Resource[clients.Client, storage.Changes] {
	return crud.Resource[clients.Client, storage.Changes]{
		Kind: clients.Kind, Env: env, Decode: decodeFields,
		Get: clients.Get, Create: clients.Create, Update: clients.Update,
	}
}

// MaxSearchLength is the longest ?search= of GET /clients, in characters
// (the parameter's maxLength in the OpenAPI document; a test compares them).
const MaxSearchLength = 200

// list serves GET /clients; search matches name or email.
func list(env *rest.Env) fiber.Handler {
	return crud.List[clients.Client](env, func(q *rest.Query, org tenancy.OrganizationID) (string, crud.ListFunc[clients.Client]) {
		search := q.String("search", MaxSearchLength)
		return storage.ListScope("clients", org, clients.SearchScope(search)),
			func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[clients.Client], error) {
				return clients.List(ctx, db, org, p, clients.ListFilter{Search: search})
			}
	})
}

package quotes

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

// resource serves GET, POST and PATCH of quotes. A patch passes the
// principal's demo flag on, for the pick list an approval creates.
func resource(env *rest.Env) crud.Resource[Quote, documents.Write] {
	return crud.Resource[Quote, documents.Write]{
		Kind: Kind, Env: env, Decode: decodeFields, Get: Get, Create: Create,
		Update: func(ctx context.Context, db bun.IDB, org, id uuid.UUID, w documents.Write) (*Quote, error) {
			return Update(ctx, db, org, id, tenancy.MustFromContext(ctx).Demo(), w)
		},
		Expand: documents.Expansions, Show: documents.Show[Quote],
	}
}

// list serves GET /quotes.
func list(env *rest.Env) fiber.Handler {
	return documents.List[Quote](env, "quotes:", Statuses,
		func(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest, status string) (scoped.Page[Quote], error) {
			return List(ctx, db, org, p, ListFilter{Status: status})
		})
}

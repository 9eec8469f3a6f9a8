package quotes

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/tenancy"
)

// resource serves GET, POST and PATCH of quotes. A patch passes the
// principal's demo flag on, for the pick list an approval creates.
func resource(env *rest.Env) crud.Resource[quotes.Quote, docstore.Write] {
	return crud.Resource[quotes.Quote, docstore.Write]{
		Kind: quotes.Kind, Env: env, Decode: decodeFields, Get: quotes.Get, Create: quotes.Create,
		Update: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w docstore.Write) (*quotes.Quote, error) {
			return quotes.Update(ctx, db, tenancy.TenantOf(ctx), id, w)
		},
		Warn:   warnPickList,
		Expand: documents.Expansions, Show: documents.Show[quotes.Quote], Large: true,
	}
}

// list serves GET /quotes.
func list(env *rest.Env) fiber.Handler {
	return documents.List[quotes.Quote](env, "quotes", quotes.Statuses,
		func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, status string) (storage.Page[quotes.Quote], error) {
			return quotes.List(ctx, db, org, p, quotes.ListFilter{Status: status})
		})
}

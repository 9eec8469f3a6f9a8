package invoices

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// resource serves GET, POST and PATCH of invoices.
func resource(env *rest.Env) crud.Resource[Invoice, documents.Write] {
	return crud.Resource[Invoice, documents.Write]{
		Kind: Kind, Env: env, Decode: decodeFields,
		Get: Get, Create: Create, Update: Update,
		Expand: documents.Expansions, Show: documents.Show[Invoice],
	}
}

// list serves GET /invoices.
func list(env *rest.Env) fiber.Handler {
	return documents.List[Invoice](env, "invoices:", Statuses,
		func(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest, status string) (scoped.Page[Invoice], error) {
			return List(ctx, db, org, p, ListFilter{Status: status})
		})
}

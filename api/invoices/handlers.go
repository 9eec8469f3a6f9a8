package invoices

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/invoices"
	"github.com/eventapi/eventapi/tenancy"
)

// resource serves GET, POST and PATCH of invoices.
func resource(env *rest.Env) crud.Resource[invoices.Invoice, docstore.Write] {
	return crud.Resource[invoices.Invoice, docstore.Write]{
		Kind: invoices.Kind, Env: env, Decode: decodeFields,
		Get: invoices.Get, Create: invoices.Create, Update: invoices.Update,
		Expand: documents.Expansions, Show: documents.Show[invoices.Invoice], Large: true,
	}
}

// list serves GET /invoices.
func list(env *rest.Env) fiber.Handler {
	return documents.List[invoices.Invoice](env, "invoices", invoices.Statuses,
		func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, status string) (storage.Page[invoices.Invoice], error) {
			return invoices.List(ctx, db, org, p, invoices.ListFilter{Status: status})
		})
}

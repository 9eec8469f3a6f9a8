package equipment

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// categoryResource serves GET, POST and PATCH of equipment categories; a
// body that sets a name is checked for a clash within the organization
// (create requires the name).
func categoryResource(env *rest.Env) crud.Resource[equipment.Category, write] {
	return crud.Resource[equipment.Category, write]{
		Kind: equipment.CategoryKind, Env: env, Decode: decodeCategory, Get: equipment.GetCategory,
		Create: func(ctx context.Context, db bun.IDB, t tenancy.Tenant, w write) (*equipment.Category, error) {
			c, err := equipment.CreateCategory(ctx, db, t, w.ch)
			return c, equipment.NameClash(ctx, db, t.Org, w.name, uuid.Nil, err)
		},
		Update: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w write) (*equipment.Category, error) {
			c, err := equipment.UpdateCategory(ctx, db, org, id, w.ch)
			return c, equipment.NameClash(ctx, db, org, w.name, id, err)
		},
		Check: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w write) error {
			if w.name == nil {
				return nil
			}
			// A PATCH of a category the organization does not have is 404
			// before any clash: a 409 naming one's own category of that
			// name answered for an unknown or foreign id.
			if id != uuid.Nil {
				if ok, err := storage.Exists(ctx, db, equipment.CategoryTable, org, id); err != nil {
					return err
				} else if !ok {
					return errs.NotFoundf(equipment.CategoryKind)
				}
			}
			return equipment.CheckCategoryName(ctx, db, org, *w.name, id)
		},
	}
}

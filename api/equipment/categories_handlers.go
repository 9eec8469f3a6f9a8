package equipment

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/tenancy"
)

// categoryResource serves GET, POST and PATCH of equipment categories; a
// body that sets a name is checked for a clash within the organization
// (create requires the name).
func categoryResource(env *rest.Env) crud.Resource[equipment.Category, write] {
	return crud.Resource[equipment.Category, write]{
		Kind: equipment.CategoryKind, Env: env, Decode: decodeCategory, Get: equipment.GetCategory,
		Create: func(ctx context.Context, db bun.IDB, t tenancy.Tenant, w write) (*equipment.Category, error) {
			return equipment.CreateCategory(ctx, db, t, w.ch)
		},
		Update: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w write) (*equipment.Category, error) {
			return equipment.UpdateCategory(ctx, db, org, id, w.ch)
		},
		Check: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w write) error {
			if w.name == nil {
				return nil
			}
			return equipment.CheckCategoryName(ctx, db, org, *w.name, id)
		},
	}
}

package equipment

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// expandCategory is the one expansion of the equipment endpoints.
const expandCategory = "category"

// expansions is what ?expand accepts on the equipment endpoints: categories
// are read with the equipment scopes (GET /equipment_categories).
var expansions = []rest.Expansion{rest.Expand(expandCategory, ReadScopes...)}

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	category, err := rest.QueryString(c, "category", 200)
	if err != nil {
		return err
	}
	expand, err := rest.ParseExpansions(c, expansions...)
	if err != nil {
		return err
	}
	p, err := rest.ParsePageFormerly(c, h.env.Cursors, storage.ListScope("equipment", org, equipment.CategoryScope(category)),
		storage.ListScope("equipment", org, category))
	if err != nil {
		return err
	}
	db := h.env.Conn(ctx)
	page, err := equipment.List(ctx, db, org, p, equipment.ListFilter{Category: category})
	if err != nil {
		return err
	}
	next := storage.Next(page, p, h.env.Cursors)
	if !expand[expandCategory] {
		return rest.Page(c, page.Items, next)
	}
	items, err := equipment.Expand(ctx, db, org, page.Items)
	if err != nil {
		return err
	}
	return rest.Page(c, items, next)
}

// resource serves GET, POST and PATCH of equipment: ?expand=category inlines
// the category, and category_id is checked against the organization before
// a write.
func (h handlers) resource() crud.Resource[equipment.Equipment, write] {
	return crud.Resource[equipment.Equipment, write]{
		Kind: equipment.Kind, Env: h.env, Decode: decodeEquipment, Get: equipment.Get,
		Create: func(ctx context.Context, db bun.IDB, t tenancy.Tenant, w write) (*equipment.Equipment, error) {
			return equipment.Create(ctx, db, t, w.ch)
		},
		Update: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w write) (*equipment.Equipment, error) {
			return equipment.Update(ctx, db, org, id, w.ch)
		},
		Check: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, _ uuid.UUID, w write) error {
			return related.Check(ctx, db, org, w.refs...)
		},
		Expand: expansions,
		Show: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, want map[string]bool, e *equipment.Equipment) (any, error) {
			if !want[expandCategory] {
				return e, nil
			}
			items, err := equipment.Expand(ctx, db, org, []equipment.Equipment{*e})
			if err != nil {
				return nil, err
			}
			return items[0], nil
		},
	}
}

package equipment

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/related"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// expandCategory is the one expansion of the equipment endpoints.
const expandCategory = "category"

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	category, err := rest.QueryString(c, "category", 200)
	if err != nil {
		return err
	}
	expand, err := rest.ParseExpand(c, expandCategory)
	if err != nil {
		return err
	}
	p, err := rest.ParsePage(c, h.env.Cursors, "equipment:"+org.String()+":"+category)
	if err != nil {
		return err
	}
	db := h.env.Conn(ctx)
	page, err := List(ctx, db, org, p, ListFilter{Category: category})
	if err != nil {
		return err
	}
	next := scoped.Next(page, p, h.env.Cursors)
	if !expand[expandCategory] {
		return rest.Page(c, page.Items, next)
	}
	items, err := Expand(ctx, db, org, page.Items)
	if err != nil {
		return err
	}
	return rest.Page(c, items, next)
}

// resource serves GET, POST and PATCH of equipment: ?expand=category inlines
// the category, and category_id is checked against the organization before
// a write.
func (h handlers) resource() crud.Resource[Equipment, write] {
	return crud.Resource[Equipment, write]{
		Kind: Kind, Env: h.env, Decode: decodeEquipment, Get: Get,
		Create: func(ctx context.Context, db bun.IDB, org uuid.UUID, demo bool, w write) (*Equipment, error) {
			return Create(ctx, db, org, demo, w.ch)
		},
		Update: func(ctx context.Context, db bun.IDB, org, id uuid.UUID, w write) (*Equipment, error) {
			return Update(ctx, db, org, id, w.ch)
		},
		Check: func(ctx context.Context, db bun.IDB, org, _ uuid.UUID, w write) error {
			return related.Check(ctx, db, org, w.refs...)
		},
		Expand: []string{expandCategory},
		Show: func(ctx context.Context, db bun.IDB, org uuid.UUID, want map[string]bool, e *Equipment) (any, error) {
			if !want[expandCategory] {
				return e, nil
			}
			items, err := Expand(ctx, db, org, []Equipment{*e})
			if err != nil {
				return nil, err
			}
			return items[0], nil
		},
	}
}

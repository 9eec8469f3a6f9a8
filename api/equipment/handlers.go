package equipment

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	reservationsapi "github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// expandCategory is the one expansion of the equipment endpoints.
const expandCategory = "category"

// expansions is what ?expand accepts on the equipment endpoints: categories
// are read with the equipment scopes (GET /equipment_categories).
var expansions = []rest.Expansion{rest.Expand(expandCategory, ReadScopes...)}

// MaxCategoryLength is the longest ?category= of GET /equipment, in
// characters (the parameter's maxLength in the OpenAPI document; a test
// compares them).
const MaxCategoryLength = 200

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	q := rest.NewQuery(c)
	category := q.String("category", MaxCategoryLength)
	expand := q.Expansions(expansions...)
	p := q.PageFormerly(h.env.Cursors, storage.ListScope("equipment", org, equipment.CategoryScope(category)),
		storage.ListScope("equipment", org, category))
	if err := q.Err(); err != nil {
		return err
	}
	db := h.env.Conn(ctx)
	page, err := equipment.List(ctx, db, org, p, equipment.ListFilter{Category: category})
	if err != nil {
		return err
	}
	next := storage.Next(page, p, h.env.Cursors)
	if !expand[expandCategory] {
		return rest.ListPage(c, h.env, page, next)
	}
	items, err := equipment.Expand(ctx, db, org, page.Items)
	if err != nil {
		return err
	}
	// a category inlines its name and color, a few hundred bytes at most
	expanded := storage.Page[equipment.WithCategory]{Items: items, HasMore: page.HasMore, Bytes: page.Bytes}
	return rest.ListPage(c, h.env, expanded, next)
}

// resource serves GET, POST and PATCH of equipment: ?expand=category inlines
// the category, category_id is checked against the organization before a
// write, and a PATCH that sets the stock warns about the reservations it
// leaves short.
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
		Warn:   warnShort,
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

// WarningStockBelowReserved is the code of the warning of a PATCH whose
// stock_quantity leaves reservations short (docs/availability.md,
// "Lowering stock").
const WarningStockBelowReserved = "stock_below_reserved"

// warnShort is the check, after a PATCH that sets a number of units, for
// reservations holding units from now on that the stock guard would now
// refuse, each counted against every hold overlapping it (one that already
// ended but still holds stock included, as the guard counts it). The write
// stands: a rental house lowers stock when units break or are sold,
// whatever is booked; the warning tells it which bookings to look at. It
// runs in the PATCH's transaction with the equipment row locked, so no
// reservation is admitted meanwhile. It names reservations and events, so
// only a key that may read reservations gets it (reservationsapi.MayRead,
// the scope of GET /equipment/{id}/availability): another gets no warning
// and no check, as does a PATCH that leaves the stock alone.
func warnShort(ctx context.Context, w write) crud.WarnCheck[equipment.Equipment] {
	if w.stock == nil || !reservationsapi.MayRead(ctx) {
		return nil
	}
	units := *w.stock
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, e *equipment.Equipment) ([]rest.Warning, error) {
		// An update that changed the stock locked the row; one that set
		// the stock it had changed nothing and locked nothing, so the row
		// is locked here, as the guard locks it, before the reservations
		// are read.
		if _, _, err := stock.LockEquipment(ctx, db, org, e.ID); err != nil {
			return nil, err
		}
		short, err := stock.FutureShortage(ctx, db, org, e.ID, units, time.Now())
		if err != nil || short == nil {
			return nil, err
		}
		return []rest.Warning{{Code: WarningStockBelowReserved, Details: short}}, nil
	}
}

package picklists

import (
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// Expansions is what ?expand accepts on the pick list endpoints, each with
// the scopes of its object type's GET route. Items have no route of their
// own: they are part of the pick list, read with its scopes. On the list,
// equipment takes effect only with items and category only with equipment
// (docs/decisions.md "Quotes, invoices and pick lists").
var Expansions = []rest.Expansion{
	rest.Expand("event", tenancy.EventReaders...),
	rest.Expand("items", ReadScopes...),
	rest.Expand("equipment", tenancy.EquipmentReaders...).In("items"),
	rest.Expand("category", tenancy.EquipmentReaders...).In("equipment"),
}

// detailExpansions are Expansions on the detail, which always carries its
// items: equipment takes effect without expand=items.
var detailExpansions = func() []rest.Expansion {
	xs := slices.Clone(Expansions)
	for i := range xs {
		if xs[i].Within == "items" {
			xs[i].Within = ""
		}
	}
	return xs
}()

// parseExpansion reads ?expand into q: the expansions that take effect.
func parseExpansion(q *rest.Query, detail bool) picklists.Expansion {
	allowed := Expansions
	if detail {
		allowed = detailExpansions
	}
	want := q.Expansions(allowed...)
	return picklists.Expansion{Event: want["event"], Items: detail || want["items"],
		Equipment: want["equipment"], Category: want["category"]}
}

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	q := rest.NewQuery(c)
	f := picklists.ListFilter{
		EventID:  q.UUID("event_id"),
		Status:   q.Enum("status", picklists.Statuses...),
		Archived: q.Bool("archived", false),
	}
	x := parseExpansion(q, false)
	scope := storage.ListScope("pick_lists", org, storage.IDParam(f.EventID), f.Status, strconv.FormatBool(f.Archived))
	p := q.Page(h.env.Cursors, scope)
	if err := q.Err(); err != nil {
		return err
	}
	if x.Items {
		p.Limit = min(p.Limit, MaxExpandedLists)
	}
	db := h.env.Conn(ctx)
	page, err := picklists.List(ctx, db, org, p, f)
	if err != nil {
		return err
	}
	next := storage.Next(page, p, h.env.Cursors)
	if x.Items {
		// items make every such page a large read
		return h.env.LargeReads.Run(ctx, func() error {
			if err := picklists.Expand(ctx, db, org, page.Items, x); err != nil {
				return err
			}
			return rest.Page(c, page.Items, next)
		})
	}
	if err := picklists.Expand(ctx, db, org, page.Items, x); err != nil {
		return err
	}
	if x.Event {
		page.Bytes += storage.ExpandedBytes(page.Items)
	}
	return rest.ListPage(c, h.env, page, next)
}

// MaxExpandedLists is the most pick lists a page with expand=items holds,
// whatever its limit: at most MaxExpandedLists × picklists.MaxItems items
// and MaxExpandedLists × picklists.MaxListText of their text (about 23 MB
// at the most, 2.5 MB for lists of short text), where 100 lists of 500
// items each are a 22 MB answer. The page ends early and next_cursor goes
// on from it. (Ten lists of long text would make a 45 MB answer.)
const MaxExpandedLists = 5

func (h handlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, picklists.Kind)
	if err != nil {
		return err
	}
	q := rest.NewQuery(c)
	x := parseExpansion(q, true)
	if err := q.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	// The detail always carries its items: a large read.
	return h.env.LargeReads.Run(ctx, func() error {
		pl, err := picklists.GetExpanded(ctx, db, org, id, x)
		if err != nil {
			return err
		}
		return rest.OK(c, pl)
	})
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	b := decodeList(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	pl, err := picklists.Create(ctx, h.env.Conn(ctx), p.Tenant(), b.ch, b.eventID.Ptr(), b.quoteID.Ptr())
	if err != nil {
		return err
	}
	return rest.Created(c, pl)
}

func (h handlers) patch(c *fiber.Ctx) error {
	id, err := rest.PathID(c, picklists.Kind)
	if err != nil {
		return err
	}
	in, err := rest.PatchBody(c)
	if err != nil {
		return err
	}
	b := decodeList(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	// The answer carries every item, as the detail does: a large read.
	return h.env.LargeReads.Run(ctx, func() error {
		pl, err := picklists.Update(ctx, db, org, id, b.ch, b.status.Value)
		if err != nil {
			return err
		}
		one := []picklists.PickList{*pl}
		if err := picklists.Expand(ctx, db, org, one, picklists.Expansion{Items: true}); err != nil {
			return err
		}
		return rest.Updated(c, &one[0], in)
	})
}

func (h handlers) createItem(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	b := decodeItem(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	it, err := picklists.CreateItem(ctx, h.env.Conn(ctx), p.Tenant(), b.newItem())
	if err != nil {
		return err
	}
	return rest.Created(c, it)
}

func (h handlers) patchItem(c *fiber.Ctx) error {
	id, err := rest.PathID(c, picklists.ItemKind)
	if err != nil {
		return err
	}
	in, err := rest.PatchBody(c)
	if err != nil {
		return err
	}
	b := decodeItem(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	it, err := picklists.UpdateItem(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id, b.apply)
	if err != nil {
		return err
	}
	return rest.Updated(c, it, in)
}

func (h handlers) deleteItem(c *fiber.Ctx) error {
	id, err := rest.PathID(c, picklists.ItemKind)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if err := picklists.DeleteItem(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id); err != nil {
		return err
	}
	return rest.NoContent(c)
}

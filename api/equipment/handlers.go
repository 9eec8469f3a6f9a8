package equipment

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/related"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// expandCategory is the one expansion of the equipment endpoints.
const expandCategory = "category"

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	category := c.Query("category")
	if len(category) > 200 {
		return errs.InvalidField("category", "must be at most 200 characters")
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

func (h handlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, Kind)
	if err != nil {
		return err
	}
	expand, err := rest.ParseExpand(c, expandCategory)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	db := h.env.Conn(ctx)
	e, err := Get(ctx, db, org, id)
	if err != nil {
		return err
	}
	if !expand[expandCategory] {
		return rest.OK(c, e)
	}
	items, err := Expand(ctx, db, org, []Equipment{*e})
	if err != nil {
		return err
	}
	return rest.OK(c, items[0])
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	w := decodeEquipment(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	db := h.env.Conn(ctx)
	if err := related.Check(ctx, db, p.OrganizationID, w.refs...); err != nil {
		return err
	}
	e, err := Create(ctx, db, p.OrganizationID, p.Demo(), w.ch)
	if err != nil {
		return err
	}
	return rest.Created(c, e)
}

func (h handlers) patch(c *fiber.Ctx) error {
	id, err := rest.PathID(c, Kind)
	if err != nil {
		return err
	}
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	w := decodeEquipment(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	if err := related.Check(ctx, db, org, w.refs...); err != nil {
		return err
	}
	e, err := Update(ctx, db, org, id, w.ch)
	if err != nil {
		return err
	}
	return rest.OK(c, e)
}

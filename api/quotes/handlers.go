package quotes

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	status, err := rest.QueryEnum(c, "status", Statuses...)
	if err != nil {
		return err
	}
	want, err := rest.ParseExpand(c, documents.Expansions...)
	if err != nil {
		return err
	}
	p, err := rest.ParsePage(c, h.env.Cursors, "quotes:"+org.String()+":"+status)
	if err != nil {
		return err
	}
	db := h.env.Conn(ctx)
	page, err := List(ctx, db, org, p, ListFilter{Status: status})
	if err != nil {
		return err
	}
	if err := documents.Expand[Quote](ctx, db, org, page.Items, want); err != nil {
		return err
	}
	return rest.Page(c, page.Items, scoped.Next(page, p, h.env.Cursors))
}

func (h handlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, Kind)
	if err != nil {
		return err
	}
	want, err := rest.ParseExpand(c, documents.Expansions...)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	q, err := Get(ctx, db, org, id)
	if err != nil {
		return err
	}
	one := []Quote{*q}
	if err := documents.Expand[Quote](ctx, db, org, one, want); err != nil {
		return err
	}
	return rest.OK(c, &one[0])
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	w := decodeFields(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	q, err := Create(ctx, h.env.Conn(ctx), p.OrganizationID, p.Demo(), w)
	if err != nil {
		return err
	}
	return rest.Created(c, q)
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
	w := decodeFields(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	q, err := Update(ctx, h.env.Conn(ctx), p.OrganizationID, id, p.Demo(), w)
	if err != nil {
		return err
	}
	return rest.OK(c, q)
}

package events

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/related"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// list serves GET /events and its alias GET /jobs. Both share one cursor
// scope, so a cursor from one continues on the other.
func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	status, err := rest.QueryEnum(c, "status", Statuses...)
	if err != nil {
		return err
	}
	if _, err := rest.ParseExpand(c); err != nil {
		return err
	}
	p, err := rest.ParsePage(c, h.env.Cursors, "events:"+org.String()+":"+status)
	if err != nil {
		return err
	}
	page, err := List(ctx, h.env.Conn(ctx), org, p, ListFilter{Status: status})
	if err != nil {
		return err
	}
	return rest.Page(c, page.Items, scoped.Next(page, p, h.env.Cursors))
}

func (h handlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, Kind)
	if err != nil {
		return err
	}
	if _, err := rest.ParseExpand(c); err != nil {
		return err
	}
	ctx := c.UserContext()
	ev, err := Get(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id)
	if err != nil {
		return err
	}
	return rest.OK(c, ev)
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	f := decodeFields(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	db := h.env.Conn(ctx)
	if err := related.Check(ctx, db, p.OrganizationID, f.Refs...); err != nil {
		return err
	}
	ev, err := Create(ctx, db, p.OrganizationID, p.Demo(), f.Changes)
	if err != nil {
		return err
	}
	return rest.Created(c, ev)
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
	f := decodeFields(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	if err := related.Check(ctx, db, org, f.Refs...); err != nil {
		return err
	}
	ev, err := Update(ctx, db, org, id, f)
	if err != nil {
		return err
	}
	return rest.OK(c, ev)
}

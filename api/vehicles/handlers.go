package vehicles

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// list serves GET /vehicles: available vehicles only.
func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	if _, err := rest.ParseExpand(c); err != nil {
		return err
	}
	p, err := rest.ParsePage(c, h.env.Cursors, "vehicles:available:"+org.String())
	if err != nil {
		return err
	}
	page, err := ListAvailable(ctx, h.env.Conn(ctx), org, p)
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
	v, err := Get(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id)
	if err != nil {
		return err
	}
	return rest.OK(c, v)
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	ch := decodeFields(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	v, err := Create(ctx, h.env.Conn(ctx), p.OrganizationID, p.Demo(), ch)
	if err != nil {
		return err
	}
	return rest.Created(c, v)
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
	ch := decodeFields(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	v, err := Update(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id, ch)
	if err != nil {
		return err
	}
	return rest.OK(c, v)
}

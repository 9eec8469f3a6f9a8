package equipment

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

type categoryHandlers struct{ env *rest.Env }

func (h categoryHandlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	if _, err := rest.ParseExpand(c); err != nil {
		return err
	}
	p, err := rest.ParsePage(c, h.env.Cursors, "equipment_categories:"+org.String())
	if err != nil {
		return err
	}
	page, err := ListCategories(ctx, h.env.Conn(ctx), org, p)
	if err != nil {
		return err
	}
	return rest.Page(c, page.Items, scoped.Next(page, p, h.env.Cursors))
}

func (h categoryHandlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, CategoryKind)
	if err != nil {
		return err
	}
	if _, err := rest.ParseExpand(c); err != nil {
		return err
	}
	ctx := c.UserContext()
	cat, err := GetCategory(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id)
	if err != nil {
		return err
	}
	return rest.OK(c, cat)
}

func (h categoryHandlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	ch := decodeCategory(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	cat, err := CreateCategory(ctx, h.env.Conn(ctx), p.OrganizationID, p.Demo(), ch)
	if err != nil {
		return err
	}
	return rest.Created(c, cat)
}

func (h categoryHandlers) patch(c *fiber.Ctx) error {
	id, err := rest.PathID(c, CategoryKind)
	if err != nil {
		return err
	}
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	ch := decodeCategory(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	cat, err := UpdateCategory(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id, ch)
	if err != nil {
		return err
	}
	return rest.OK(c, cat)
}

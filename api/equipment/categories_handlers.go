package equipment

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

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
	w := decodeCategory(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	db := h.env.Conn(ctx)
	if err := CheckCategoryName(ctx, db, p.OrganizationID, *w.name, uuid.Nil); err != nil {
		return err
	}
	cat, err := CreateCategory(ctx, db, p.OrganizationID, p.Demo(), w.ch)
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
	w := decodeCategory(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	if w.name != nil {
		if err := CheckCategoryName(ctx, db, org, *w.name, id); err != nil {
			return err
		}
	}
	cat, err := UpdateCategory(ctx, db, org, id, w.ch)
	if err != nil {
		return err
	}
	return rest.OK(c, cat)
}

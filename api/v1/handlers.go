package v1

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/v1store"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// resource is one v1 collection: the view its records are read through, the
// filters its list reads from the query (nil: none) and what rendering sets
// on each record read (nil: nothing).
type resource[T any] struct {
	view    v1store.View[T]
	filters filterParser
	render  func(*T)
}

// filterParser reads a list's query filters (nil: the list has none).
type filterParser func(c *fiber.Ctx) ([]storage.Filter, error)

// listHandler serves GET on a v1 collection: page and limit, the view's
// filters and order, {data, meta:{org_id, page, total}}.
func listHandler[T any](env *rest.Env, r resource[T]) fiber.Handler {
	return func(c *fiber.Ctx) error {
		// Paging and filters are both checked before either is reported, so
		// one 400 names every bad parameter (docs/v1.md, "Paging").
		p, pageErr := parsePage(c)
		var filters []storage.Filter
		var filterErr error
		if r.filters != nil {
			filters, filterErr = r.filters(c)
		}
		if err := errs.Combine(pageErr, filterErr); err != nil {
			return err
		}
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		items, total, err := r.view.List(ctx, env.Conn(ctx), org, p.Limit, p.offset(), filters...)
		if err != nil {
			return err
		}
		if r.render != nil {
			for i := range items {
				r.render(&items[i])
			}
		}
		return writeMany(c, org, p.Page, items, total)
	}
}

// getHandler serves GET on one v1 record: {data, meta:{org_id}}. A non-uuid
// id, an unknown id and another organization's id are all 404 NOT_FOUND.
func getHandler[T any](env *rest.Env, r resource[T]) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := rest.PathID(c, r.view.Kind)
		if err != nil {
			return err
		}
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		m, err := r.view.Get(ctx, env.Conn(ctx), org, id)
		if err != nil {
			return err
		}
		if r.render != nil {
			r.render(m)
		}
		return writeOne(c, org, m)
	}
}

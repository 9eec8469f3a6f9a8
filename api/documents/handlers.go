package documents

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/tenancy"
)

// ListFunc loads one page of org's documents, status filtering when not empty.
type ListFunc[T any] func(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest, status string) (scoped.Page[T], error)

// List serves GET on a document collection: ?status filters among statuses
// and ?expand inlines Expansions. prefix starts the cursor scope ("quotes:").
func List[T any, PT interface {
	*T
	Party
	scoped.Row
}](env *rest.Env, prefix string, statuses []string, list ListFunc[T]) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		status, err := rest.QueryEnum(c, "status", statuses...)
		if err != nil {
			return err
		}
		want, err := rest.ParseExpand(c, Expansions...)
		if err != nil {
			return err
		}
		p, err := rest.ParsePage(c, env.Cursors, prefix+org.String()+":"+status)
		if err != nil {
			return err
		}
		db := env.Conn(ctx)
		page, err := list(ctx, db, org, p, status)
		if err != nil {
			return err
		}
		if err := Expand[T, PT](ctx, db, org, page.Items, want); err != nil {
			return err
		}
		return rest.Page(c, page.Items, scoped.Next[T, PT](page, p, env.Cursors))
	}
}

// Show is the crud.Resource Show of a document: doc with the requested
// expansions inlined.
func Show[T any, PT interface {
	*T
	Party
}](ctx context.Context, db bun.IDB, org uuid.UUID, want map[string]bool, doc *T) (any, error) {
	one := []T{*doc}
	if err := Expand[T, PT](ctx, db, org, one, want); err != nil {
		return nil, err
	}
	return &one[0], nil
}

package documents

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/tenancy"
)

// Expansions is what ?expand accepts on quotes and invoices, each with the
// scopes of its object type's GET route.
var Expansions = []rest.Expansion{
	rest.Expand("client", tenancy.ClientReaders...),
	rest.Expand("event", tenancy.EventReaders...),
}

// ListFunc loads one page of org's documents, status filtering when not empty.
type ListFunc[T any] func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, status string) (storage.Page[T], error)

// List serves GET on a document collection: ?status filters among statuses
// and ?expand inlines Expansions. name names the list in the cursor scope
// ("quotes"). One 422 names every bad parameter (rest.Query). A large page
// (its notes, with the client and event it inlines for each document) is
// encoded under Env.LargeReads (rest.ListPage).
func List[T any, PT interface {
	*T
	documents.Party
	storage.Row
}](env *rest.Env, name string, statuses []string, list ListFunc[T]) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		q := rest.NewQuery(c)
		status := q.Enum("status", statuses...)
		want := q.Expansions(Expansions...)
		p := q.Page(env.Cursors, storage.ListScope(name, org, status))
		if err := q.Err(); err != nil {
			return err
		}
		db := env.Conn(ctx)
		page, err := list(ctx, db, org, p, status)
		if err != nil {
			return err
		}
		if err := documents.Expand[T, PT](ctx, db, org, page.Items, want); err != nil {
			return err
		}
		if len(want) > 0 {
			page.Bytes += storage.ExpandedBytes(page.Items)
		}
		return rest.ListPage(c, env, page, storage.Next[T, PT](page, p, env.Cursors))
	}
}

// Show is the crud.Resource Show of a document: doc with the requested
// expansions inlined.
func Show[T any, PT interface {
	*T
	documents.Party
}](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, want map[string]bool, doc *T) (any, error) {
	one := []T{*doc}
	if err := documents.Expand[T, PT](ctx, db, org, one, want); err != nil {
		return nil, err
	}
	return &one[0], nil
}

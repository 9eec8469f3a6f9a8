// Package crud builds the v2 handlers that org-scoped resources repeat: list
// a page, get one by id, create from a body and patch by id. A resource gives
// its kind, decoder and store calls; what is its own (filters, expansions,
// reference checks) it passes as hooks or keeps in its package.
package crud

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Resource describes one org-scoped resource T whose bodies decode into F.
type Resource[T, F any] struct {
	// Kind names the resource in errors (the path id's 404).
	Kind string
	Env  *rest.Env
	// Decode reads a body; create enforces the required fields.
	Decode func(in *rest.Input, create bool) F
	Get    func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*T, error)
	Create func(ctx context.Context, db bun.IDB, t tenancy.Tenant, f F) (*T, error)
	Update func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, f F) (*T, error)

	// Check, when set, runs on a valid body before the write, on the same
	// connection; id is uuid.Nil on create. On PATCH the record is read
	// first, so an unknown or foreign id is 404 before any Check issue.
	Check func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, f F) error
	// Expand lists the expansions ?expand accepts on get, each with the
	// scopes that may read what it inlines (none when empty).
	Expand []rest.Expansion
	// Show, when set, turns the loaded record into the response given the
	// requested expansions.
	Show func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, want map[string]bool, v *T) (any, error)
	// Large marks a resource whose detail can be large (a document of 500
	// long lines is about half a megabyte): GetOne builds it, and PatchOne
	// writes and answers it, under Env.LargeReads (docs/architecture.md,
	// "Memory"). Mount marks its PATCH a large write.
	Large bool
	// LargeWith names the expansions that make a GET's answer large (an
	// event's reservations): a GET asking for one is built under
	// Env.LargeReads, as a Large resource's is.
	LargeWith []string
	// Warn, when set, is asked before a PATCH writes f for the check that
	// finds what the response should warn about beside the ignored fields;
	// nil when f can warrant no warning (the PATCH then runs without a
	// transaction of its own).
	Warn func(ctx context.Context, f F) WarnCheck[T]
}

// WarnCheck runs after a PATCH has written v, in the same transaction, and
// returns the warnings of the answer.
type WarnCheck[T any] func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *T) ([]rest.Warning, error)

// ListFunc loads one page of org's records.
type ListFunc[T any] func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[T], error)

// ListQuery reads the parameters of a collection of its own into q (its
// filters, each bad one an issue of q) and returns the cursor scope of the
// request and the store call for one page.
type ListQuery[T any] func(q *rest.Query, org tenancy.OrganizationID) (string, ListFunc[T])

// List serves GET on a collection without expansions. query reads the
// resource's own parameters, then ?expand (which it refuses) and the page
// are read, and one 422 names every bad parameter (rest.Query). A large
// page is encoded under Env.LargeReads (rest.ListPage).
func List[T any, PT interface {
	*T
	storage.Row
}](env *rest.Env, query ListQuery[T]) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		q := rest.NewQuery(c)
		scope, list := query(q, org)
		q.Expansions()
		p := q.Page(env.Cursors, scope)
		if err := q.Err(); err != nil {
			return err
		}
		page, err := list(ctx, env.Conn(ctx), org, p)
		if err != nil {
			return err
		}
		return rest.ListPage(c, env, page, storage.Next[T, PT](page, p, env.Cursors))
	}
}

// GetOne serves GET on /:id.
func (r Resource[T, F]) GetOne(c *fiber.Ctx) error {
	id, err := rest.PathID(c, r.Kind)
	if err != nil {
		return err
	}
	want, err := rest.ParseExpansions(c, r.Expand...)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if r.large(want) {
		return r.Env.LargeReads.Run(ctx, func() error { return r.show(c, id, want) })
	}
	return r.show(c, id, want)
}

// large reports whether a GET with the expansions want builds a large
// answer (Large, LargeWith).
func (r Resource[T, F]) large(want map[string]bool) bool {
	if r.Large {
		return true
	}
	for _, name := range r.LargeWith {
		if want[name] {
			return true
		}
	}
	return false
}

// show loads and answers the record id with the expansions want.
func (r Resource[T, F]) show(c *fiber.Ctx, id uuid.UUID, want map[string]bool) error {
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), r.Env.Conn(ctx)
	v, err := r.Get(ctx, db, org, id)
	if err != nil {
		return err
	}
	if r.Show == nil {
		return rest.OK(c, v)
	}
	out, err := r.Show(ctx, db, org, want, v)
	if err != nil {
		return err
	}
	return rest.OK(c, out)
}

// CreateOne serves POST on the collection.
func (r Resource[T, F]) CreateOne(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	f := r.Decode(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	t := tenancy.TenantOf(ctx)
	db := r.Env.Conn(ctx)
	if r.Check != nil {
		if err := r.Check(ctx, db, t.Org, uuid.Nil, f); err != nil {
			return err
		}
	}
	v, err := r.Create(ctx, db, t, f)
	if err != nil {
		return err
	}
	return rest.Created(c, v)
}

// PatchOne serves PATCH on /:id. Read-only and unknown fields are ignored
// and reported in warnings (rest.PatchBody).
func (r Resource[T, F]) PatchOne(c *fiber.Ctx) error {
	id, err := rest.PathID(c, r.Kind)
	if err != nil {
		return err
	}
	in, err := rest.PatchBody(c)
	if err != nil {
		return err
	}
	f := r.Decode(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	if r.Large {
		// Its answer is the detail a GET builds under the bound: an empty
		// PATCH must not be a way around it.
		return r.Env.LargeReads.Run(c.UserContext(), func() error { return r.patch(c, id, in, f) })
	}
	return r.patch(c, id, in, f)
}

// patch writes f onto the record id and answers it.
func (r Resource[T, F]) patch(c *fiber.Ctx, id uuid.UUID, in *rest.Input, f F) error {
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), r.Env.Conn(ctx)
	if r.Check != nil {
		// A record the organization does not have is 404 before any check
		// of the body against other records: a 409 name clash or a 422
		// reference issue would describe a record that is not there.
		if _, err := r.Get(ctx, db, org, id); err != nil {
			return err
		}
		if err := r.Check(ctx, db, org, id, f); err != nil {
			return err
		}
	}
	v, warns, err := r.update(ctx, db, org, id, f)
	if err != nil {
		return err
	}
	return rest.Updated(c, v, in, warns...)
}

// update writes f and, when Warn has a check for f, runs it in the same
// transaction: the answer describes the state the write left, and a failed
// check leaves nothing written.
func (r Resource[T, F]) update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, f F) (v *T, warns []rest.Warning, err error) {
	var check WarnCheck[T]
	if r.Warn != nil {
		check = r.Warn(ctx, f)
	}
	if check == nil {
		v, err = r.Update(ctx, db, org, id, f)
		return v, nil, err
	}
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if v, err = r.Update(ctx, tx, org, id, f); err != nil {
			return err
		}
		warns, err = check(ctx, tx, org, v)
		return err
	})
	return v, warns, err
}

// Unfiltered is the List query of a collection with no parameters of its
// own: its cursor scope is the list name and the organization.
func Unfiltered[T any](name string, list ListFunc[T]) ListQuery[T] {
	return func(_ *rest.Query, org tenancy.OrganizationID) (string, ListFunc[T]) {
		return storage.ListScope(name, org), list
	}
}

// Mount registers list, create, get and patch of the resource under path
// ("/clients"): reads behind a guard of the read scopes, a create behind
// one of the write scopes, and a patch behind write and then read; the
// patch of a Large resource is marked a large write
// (rest.Env.MarkLargeWrite) with the same scopes.
//
// A PATCH answers the whole stored record, a read that a write scope does
// not grant (the scopes are independent), so it needs both, as v1's PATCH
// does (docs/v1.md). write is checked first: a key holding neither is told
// the write scope, a key holding only the write scope is told the read
// scopes, in details.required of its 403. A create answers only what the
// caller sent and stays behind write alone.
func (r Resource[T, F]) Mount(router fiber.Router, path string, read, write []tenancy.Scope, list fiber.Handler) {
	readGuard, writeGuard := auth.Require(read...), auth.Require(write...)
	router.Get(path, readGuard, list)
	router.Post(path, writeGuard, r.CreateOne)
	router.Get(path+"/:id", readGuard, r.GetOne)
	if r.Large {
		r.Env.PatchLarge(router, path+"/:id", write, read, r.PatchOne)
		return
	}
	router.Patch(path+"/:id", writeGuard, readGuard, r.PatchOne)
}

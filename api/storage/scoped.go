// Package storage is the organization-scoped storage layer every resource
// store is built from: the generic queries, the paged list with its signed
// cursors, and the calendar date type. It knows nothing of HTTP. Every select, update and delete here carries
// "organization_id = ?"; an update or delete that touches no row is
// not_found, so another organization's id is indistinguishable from a
// missing one. Functions take bun.IDB so they run on the pool or in a
// transaction alike.
package storage

import (
	"context"
	"reflect"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Filter narrows a select query.
type Filter func(*bun.SelectQuery) *bun.SelectQuery

// Locked locks the selected row FOR UPDATE until the transaction ends: the
// lock a delete takes, so a write that would make another row reference it
// (whose foreign-key check takes FOR KEY SHARE) waits for the delete and
// then fails, instead of slipping in between what the delete read and the
// DELETE itself.
func Locked(q *bun.SelectQuery) *bun.SelectQuery { return q.For("UPDATE") }

// Get loads the record id of org into a new T; kind names it in not_found.
func Get[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, kind string, filters ...Filter) (*T, error) {
	if len(filters) == 0 {
		if m, ok, err := getByID[T](ctx, db, org, id, kind); ok {
			return m, err
		}
	}
	m := new(T)
	q := db.NewSelect().Model(m).
		Where("?TableAlias.organization_id = ?", org).
		Where("?TableAlias.id = ?", id)
	for _, f := range filters {
		q = f(q)
	}
	if err := q.Limit(1).Scan(ctx); err != nil {
		if err = database.Error(err); errs.Is(err, errs.NotFound) {
			return nil, errs.NotFoundOf(kind)
		}
		return nil, err
	}
	return m, nil
}

// Exists reports whether table holds id for org (for reference checks).
func Exists(ctx context.Context, db bun.IDB, table string, org tenancy.OrganizationID, id uuid.UUID) (bool, error) {
	ok, err := db.NewSelect().Table(table).Where("organization_id = ?", org).Where("id = ?", id).Exists(ctx)
	return ok, database.Error(err)
}

// Create inserts a row of T's table for org from the assignments in ch (with
// organization_id and demo set here, never from input) and returns the row as
// stored, database defaults included.
func Create[T any](ctx context.Context, db bun.IDB, t tenancy.Tenant, ch Changes) (*T, error) {
	m := new(T)
	table := db.Dialect().Tables().Get(reflect.TypeOf(m)).Name
	cols := make([]string, 0, len(ch.cols)+2)
	for _, col := range append([]string{"organization_id", "demo"}, ch.cols...) {
		cols = append(cols, database.Ident(db, col))
	}
	args := append([]any{t.Org, t.Demo}, ch.vals...)
	placeholders := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	query := "INSERT INTO " + database.Ident(db, table) + " (" + strings.Join(cols, ", ") +
		") VALUES (" + placeholders + ") RETURNING *"
	if err := db.NewRaw(query, args...).Scan(ctx, m); err != nil {
		return nil, database.Error(err)
	}
	return m, nil
}

// Changes is an ordered set of column assignments for Update.
type Changes struct {
	cols  []string
	vals  []any
	touch bool
}

// Touch makes Update write the row even when every assignment equals the
// stored value, for a record whose change lives in another table (a
// document whose line items were replaced fires its change through its row).
func (c *Changes) Touch() { c.touch = true }

// Set assigns value to column, replacing an earlier assignment of it: an
// UPDATE may assign a column once, and a transaction that runs again after
// a serialization failure sets its columns again (picklists.Update).
func (c *Changes) Set(column string, value any) {
	for i, col := range c.cols {
		if col == column {
			c.vals[i] = value
			return
		}
	}
	c.cols = append(c.cols, column)
	c.vals = append(c.vals, value)
}

// Same reports whether two optional values are equal: both absent, or
// both present and equal. Writes use it to set only the columns a change
// really changes.
func Same[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// SetIf assigns value to column when ok.
func (c *Changes) SetIf(ok bool, column string, value any) {
	if ok {
		c.Set(column, value)
	}
}

// Value returns the value assigned to column, if any.
func (c *Changes) Value(column string) (any, bool) {
	for i, col := range c.cols {
		if col == column {
			return c.vals[i], true
		}
	}
	return nil, false
}

// Len is the number of assignments.
func (c *Changes) Len() int { return len(c.cols) }

// Update applies ch to the record id of org and returns the updated record.
// A write that changes nothing is no write (docs/decisions.md, "A PATCH
// that changes nothing"): when no assignment differs from the stored value,
// the row is left alone, so updated_at stays and no change is recorded, and
// the record is returned as it is. The comparison is part of the UPDATE,
// so it is made on the row the update would write, after any concurrent
// writer committed.
func Update[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, kind string, ch Changes) (*T, error) {
	if ch.Len() == 0 && !ch.touch {
		return Get[T](ctx, db, org, id, kind)
	}
	m := new(T)
	q := db.NewUpdate().Model(m).
		Where("?TableAlias.organization_id = ?", org).
		Where("?TableAlias.id = ?", id)
	for i, col := range ch.cols {
		q = q.Set("? = ?", bun.Ident(col), ch.vals[i])
	}
	if !ch.touch {
		q = q.WhereGroup(" AND ", func(q *bun.UpdateQuery) *bun.UpdateQuery {
			for i, col := range ch.cols {
				q = q.WhereOr("?TableAlias.? IS DISTINCT FROM ?", bun.Ident(col), ch.vals[i])
			}
			return q
		})
	}
	res, err := q.Set("updated_at = clock_timestamp()").Returning("*").Exec(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Missing (or another organization's), or nothing to change.
		return Get[T](ctx, db, org, id, kind)
	}
	return m, nil
}

// Delete removes the record id of org.
func Delete[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, kind string) error {
	res, err := db.NewDelete().Model((*T)(nil)).
		Where("?TableAlias.organization_id = ?", org).
		Where("?TableAlias.id = ?", id).Exec(ctx)
	if err != nil {
		return database.Error(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFoundOf(kind)
	}
	return nil
}

package v1store

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// alphabetical is the collation of the v1 orderings by name: ICU's root
// collation compares letters first, then accents, then letter case, so
// "apple", "Apple" and "Äpfel" sort among the a's and "Éclair" among the
// e's, the same on every installation whatever the database's own collation
// (migration 20261129020000_v1_alphabetical indexes the same expressions).
const alphabetical = `COLLATE "und-x-icu"`

// View describes how one v1 resource is read from its table: T is a bun read
// model of the table, shape adds its joins and joined columns, order is the
// list order. Every query it builds filters organization_id.
type View[T any] struct {
	// Kind names the resource in not_found.
	Kind  string
	shape storage.Filter
	order string
}

// selectFor starts an org-scoped select of the view into dst.
func (v View[T]) selectFor(db bun.IDB, dst any, org tenancy.OrganizationID) *bun.SelectQuery {
	q := db.NewSelect().Model(dst).Where("?TableAlias.organization_id = ?", org)
	if v.shape != nil {
		q = v.shape(q)
	}
	return q
}

// Get loads the record id of org (not_found names the view's kind).
func (v View[T]) Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*T, error) {
	var filters []storage.Filter
	if v.shape != nil {
		filters = append(filters, v.shape)
	}
	return storage.Get[T](ctx, db, org, id, v.Kind, filters...)
}

// List returns limit of org's records from offset on, in the view's order,
// and the count of all records matching filters. Both read one snapshot (a
// read-only REPEATABLE READ transaction), so total agrees with the page;
// inside a caller's transaction they run as it does.
func (v View[T]) List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, limit, offset int, filters ...storage.Filter) ([]T, int, error) {
	items := []T{}
	var total int
	err := database.RunInSnapshot(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		q := v.selectFor(tx, &items, org)
		c := tx.NewSelect().Model((*T)(nil)).Where("?TableAlias.organization_id = ?", org)
		for _, f := range filters {
			q, c = f(q), f(c)
		}
		if err := q.OrderExpr(v.order).Limit(int64(limit)).Offset(int64(offset)).Scan(ctx); err != nil {
			return err
		}
		n, err := c.Count(ctx)
		total = int(n)
		return err
	})
	if err != nil {
		return nil, 0, database.Error(err)
	}
	return items, total, nil
}

package storage

import (
	"context"
	"reflect"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// inTexts caches the parameterised query of In per model and set.
var inTexts sync.Map // inKey → string

type inKey struct {
	typ reflect.Type
	set inSet
}

// ByIDs loads the records of org whose ids are in ids, in no particular
// order, in one query (In).
func ByIDs[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, kind string) ([]T, error) {
	return In[T](ctx, db, org, "id", ids, "", kind)
}

// In loads the records of org whose uuid column holds one of ids, ordered
// by order (SQL on the model's columns, "" for none), in one query. The ids
// go as one uuid[] parameter, where bun would write each into the text (an
// expansion of 1000 records was a new 40 KB statement for PostgreSQL to
// parse and plan every time), and the rows are scanned directly (scan.go).
// The array is joined as a set (IN (SELECT unnest)), not tested with
// = ANY: a cached generic plan cannot hash a parameter array, so = ANY
// compared each of an organization's rows with every id (1000 ids: 1.7 ms
// of PostgreSQL per manifest, against 0.3-1.3 ms joined).
// column and order are code, never input.
func In[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, column string, ids []uuid.UUID, order, kind string) ([]T, error) {
	return in[T](ctx, db, org, inSet{column: column, order: order}, ids, kind)
}

// Through names the links from other records to T's: T's id is in Column
// of Table's rows (of the same organization) whose Key holds one of the ids,
// as the equipment of a pick list's items is linked by pick_list_items'
// equipment_id. All are code, never input.
type Through struct{ Table, Column, Key string }

// InThrough loads the records of org that t links from ids, in no
// particular order, in one query that follows the links itself: it needs
// neither the linking rows nor to wait for them (picklists.Expand runs it
// beside the query for the items).
func InThrough[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, t Through, ids []uuid.UUID, kind string) ([]T, error) {
	return in[T](ctx, db, org, inSet{column: "id", through: t}, ids, kind)
}

// inSet is what In and InThrough select: the rows whose column is in the
// ids, or in the links through from them, ordered by order.
type inSet struct {
	column, order string
	through       Through
}

// idsParam is the SQL of the set of ids sent as In's $2.
const idsParam = "SELECT unnest($2::uuid[])"

// text is the set's parameterised statement, $1 the organization and $2 the
// ids, cached per model.
func (s inSet) text(typ reflect.Type) string {
	key := inKey{typ, s}
	if text, found := inTexts.Load(key); found {
		return text.(string)
	}
	q := scanner.NewSelect().Model(reflect.New(typ).Interface())
	text := s.where(q, bun.Safe("$1"), bun.Safe(idsParam)).String()
	inTexts.Store(key, text)
	return text
}

// where narrows q to the set with org and ids as given: placeholders for
// the parameterised text, values (bun.In) where bun writes them into the
// text, for the connections query cannot address.
func (s inSet) where(q *bun.SelectQuery, org, ids any) *bun.SelectQuery {
	q = q.Where("?TableAlias.organization_id = ?", org)
	if s.through.Table == "" {
		q = q.Where("?TableAlias.? IN (?)", bun.Ident(s.column), ids)
	} else {
		q = q.Where("?TableAlias.? IN (SELECT ? FROM ? WHERE organization_id = ? AND ? IN (?))",
			bun.Ident(s.column), bun.Ident(s.through.Column), bun.Ident(s.through.Table), org,
			bun.Ident(s.through.Key), ids)
	}
	if s.order != "" {
		q = q.OrderExpr(s.order)
	}
	return q
}

func in[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, set inSet, ids []uuid.UUID, kind string) ([]T, error) {
	var out []T
	if len(ids) == 0 {
		return out, nil
	}
	if set.column == "id" && set.through.Table == "" {
		out = make([]T, 0, len(ids)) // at most one row per id: no regrowth
	}
	params := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		params[i] = pgtype.UUID{Bytes: id, Valid: true}
	}
	text := set.text(reflect.TypeFor[T]())
	ok, err := query(ctx, db, "SELECT "+kind, text, []any{param(org), params}, pgxScannable[T](), func(ctx context.Context, rs rows) error {
		return scanAll(ctx, rs, &out)
	})
	if ok {
		return out, err
	}
	return out, database.Error(set.where(db.NewSelect().Model(&out), org, bun.In(ids)).Scan(ctx))
}

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
// A single id is matched with = $2 and stays prepared; more are matched
// with = ANY($2) and planned on every call (inSet.oneID, inSet.args).
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
	// one is set for a single id on the column itself, which the
	// parameterised text tests with = $2 (oneID); otherwise the ids are an
	// array.
	one bool
}

// oneID reports whether the parameterised text of s for n ids tests a
// single uuid with = $2 rather than an array with = ANY($2). The plan
// PostgreSQL caches for = $2 after five calls is the one every call would
// get, an index scan on (organization_id, column) however large the
// organization, so that statement stays prepared and is not planned again
// (a pick list's items by its id: 1.71 ms against 2.06 planned each call).
// Records linked through a table are matched through an array even for one
// id (idsParam).
func (s inSet) oneID(n int) bool { return n == 1 && s.through.Table == "" }

// idsParam is the SQL of the ids sent as In's $2 and how they are matched.
func (s inSet) idsParam() (op string, param bun.Safe) {
	if s.one {
		return "= ?", bun.Safe("$2::uuid")
	}
	return "= ANY(?)", bun.Safe("$2::uuid[]")
}

// args are the query arguments of s's text for org and ids. An array of ids
// is sent with database.PlanEachCall, so that PostgreSQL plans it for this
// organization and these ids: the plan it would otherwise cache after five
// calls is made for no organization in particular, and for = ANY, or the
// join of an unnested array, that plan could read all of the
// organization's rows and compare each with the ids, which on an
// organization much larger than the average is its whole table
// (docs/architecture.md, "Expansions").
func (s inSet) args(org tenancy.OrganizationID, ids []uuid.UUID) []any {
	if s.one {
		return []any{param(org), param(ids[0])}
	}
	params := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		params[i] = pgtype.UUID{Bytes: id, Valid: true}
	}
	return []any{database.PlanEachCall, param(org), params}
}

// text is the set's parameterised statement, $1 the organization and $2 the
// ids, cached per model.
func (s inSet) text(typ reflect.Type) string {
	key := inKey{typ, s}
	if text, found := inTexts.Load(key); found {
		return text.(string)
	}
	q := scanner.NewSelect().Model(reflect.New(typ).Interface())
	op, ids := s.idsParam()
	text := s.where(q, bun.Safe("$1"), op, ids).String()
	inTexts.Store(key, text)
	return text
}

// where narrows q to the set with org and ids as given, the ids matched by
// op: placeholders for the parameterised text, values (IN and bun.In) where
// bun writes them into the text, for the connections query cannot address.
func (s inSet) where(q *bun.SelectQuery, org any, op string, ids any) *bun.SelectQuery {
	q = q.Where("?TableAlias.organization_id = ?", org)
	if s.through.Table == "" {
		q = q.Where("?TableAlias.? "+op, bun.Ident(s.column), ids)
	} else {
		q = q.Where("?TableAlias.? = ANY(ARRAY(SELECT ? FROM ? WHERE organization_id = ? AND ? "+op+"))",
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
	set.one = set.oneID(len(ids))
	args := set.args(org, ids)
	text := set.text(reflect.TypeFor[T]())
	ok, err := query(ctx, db, "SELECT "+kind, text, args, pgxScannable[T](), func(ctx context.Context, rs rows) error {
		return scanAll(ctx, rs, &out)
	})
	if ok {
		return out, err
	}
	return out, database.Error(set.where(db.NewSelect().Model(&out), org, "IN (?)", bun.List(ids)).Scan(ctx))
}

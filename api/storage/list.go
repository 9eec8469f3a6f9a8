package storage

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Cond is one condition of a list query, written as for bun's Where:
// ?TableAlias names the listed table and each "?" takes the next of Args.
// The arguments are sent as query parameters, so the statement's text is the
// same for every organization and value and stays prepared (prepared.go).
type Cond struct {
	Expr string
	Args []any
	// planned has the list planned for its values on every call
	// (WherePlanned).
	planned bool
}

// Where returns a condition whose arguments are sent as parameters.
func Where(expr string, args ...any) Cond { return Cond{Expr: expr, Args: args} }

// WherePlanned returns a condition whose value decides the plan. A list that
// has one is sent with database.PlanEachCall, its arguments still
// parameters, so PostgreSQL plans every call for its values instead of
// keeping the statement prepared. A prepared statement is planned
// generically after five runs, and a generic plan of a trigram search, not
// knowing the term nor the organization, scans the organization's page
// index instead of the trigram index: a rare term at 100,000 clients took
// 360 ms instead of 24 ms (bench/HISTORY.md).
func WherePlanned(expr string, args ...any) Cond { return Cond{Expr: expr, Args: args, planned: true} }

// listKey identifies one parameterised list text.
type listKey struct {
	typ    reflect.Type
	cursor bool
	conds  string
}

// listText caches the parameterised list texts.
var listText sync.Map // listKey → string

// List returns up to p.Limit records of org after p.After, ordered by
// (created_at, id) ascending, that match every cond. Records inserted or
// deleted between two fetches never make another record appear twice or be
// skipped, and a record whose transaction commits after a page was read
// sorts after that page: the list_position trigger reads created_at only
// once earlier inserts of the organization into the table have committed
// (docs/decisions.md, "Lists: a late commit is never skipped"). The page's
// Bytes is its size as read (scanAllSized).
func List[T any, PT interface {
	*T
	Row
}](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p PageRequest, conds ...Cond) (Page[T], error) {
	var items []T
	var size int
	text, args := listQuery[T](org, p, conds)
	if slices.ContainsFunc(conds, func(c Cond) bool { return c.planned }) {
		args = append([]any{database.PlanEachCall}, args...)
	}
	ok, err := query(ctx, db, "SELECT "+listTable[T](), text, args, pgxScannable[T](), func(ctx context.Context, rs rows) (err error) {
		size, err = scanAllSized(ctx, rs, &items)
		return err
	})
	if !ok {
		err = listViaBun(ctx, db, &items, org, p, conds)
		size = textBytes(items)
	}
	if err != nil {
		return Page[T]{}, err
	}
	// Bytes counts the row read past the page too (the limit+1st, which
	// only tells that more follow): one record at most, and never encoded.
	page := Page[T]{Items: items, Bytes: size}
	if len(items) > p.Limit {
		page.Items, page.HasMore = items[:p.Limit], true
	}
	if page.Items == nil {
		page.Items = []T{}
	}
	return page, nil
}

func listTable[T any]() string {
	return scanner.Table(reflect.TypeFor[T]()).Name
}

// listQuery returns the parameterised text of a list page and its arguments:
// $1 the organization, then the cursor's created_at and id, each
// condition's arguments in order, and the limit last.
func listQuery[T any](org tenancy.OrganizationID, p PageRequest, conds []Cond) (string, []any) {
	args := make([]any, 0, 4+len(conds))
	args = append(args, param(org))
	if p.After != nil {
		args = append(args, p.After.CreatedAt, param(p.After.ID))
	}
	for _, c := range conds {
		for _, a := range c.Args {
			args = append(args, param(a))
		}
	}
	args = append(args, int64(p.Limit+1))

	key := listKey{typ: reflect.TypeFor[T](), cursor: p.After != nil}
	if len(conds) > 0 {
		exprs := make([]string, len(conds))
		for i, c := range conds {
			exprs[i] = c.Expr
		}
		key.conds = strings.Join(exprs, "\x00")
	}
	if text, ok := listText.Load(key); ok {
		return text.(string), args
	}
	q := scanner.NewSelect().Model((*T)(nil)).Where("?TableAlias.organization_id = $1")
	n := 2
	if p.After != nil {
		q = q.Where("(?TableAlias.created_at, ?TableAlias.id) > ($2, $3)")
		n = 4
	}
	for _, c := range conds {
		ph := make([]any, len(c.Args))
		for i := range ph {
			ph[i] = bun.Safe("$" + strconv.Itoa(n))
			n++
		}
		q = q.Where(c.Expr, ph...)
	}
	text := q.OrderExpr("?TableAlias.created_at ASC, ?TableAlias.id ASC").String() + " LIMIT $" + strconv.Itoa(n)
	listText.Store(key, text)
	return text, args
}

// listViaBun runs the list through bun, every value written into the text,
// on a db that query cannot address directly.
func listViaBun[T any](ctx context.Context, db bun.IDB, items *[]T, org tenancy.OrganizationID, p PageRequest, conds []Cond) error {
	q := db.NewSelect().Model(items).Where("?TableAlias.organization_id = ?", org)
	if p.After != nil {
		q = q.Where("(?TableAlias.created_at, ?TableAlias.id) > (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	for _, c := range conds {
		q = q.Where(c.Expr, c.Args...)
	}
	q = q.OrderExpr("?TableAlias.created_at ASC, ?TableAlias.id ASC").Limit(int64(p.Limit + 1))
	return database.Error(q.Scan(ctx))
}

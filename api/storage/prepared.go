package storage

import (
	"context"
	"database/sql"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
)

// bun writes argument values into the SQL text, so a query by id, or a list
// of one organization, is a new statement for every id or organization, and
// PostgreSQL parses and plans each one (pgx's statement cache, 32 per
// connection, cannot hold one text per organization). The hottest queries of
// the API, the detail lookup and the list page, are therefore sent here with
// real parameters ($1 organization, then the id or the cursor, the filters
// and the limit): the text is constant per model and filter set, pgx keeps
// it prepared, and each call is a single Bind/Execute. Behind a transaction
// pooler (EVENTAPI_DATABASE_POOLER=transaction) pgx prepares nothing and
// sends the same text as one unnamed parse-bind-execute round trip instead
// (platform/database/pooler.go).
//
// These statements bypass bun's query hooks (bun would inline the
// arguments), so they are traced here, and the statement hooks registered
// with AddStatementHook (the tenant guard of api/storage/storagetest) see
// their text.

// scanner scans rows into bun models; it never runs a query itself.
var scanner = bun.NewDB(nil, pgdialect.New())

// getText caches the parameterised detail query per model type.
var getText sync.Map // reflect.Type → string

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// StatementHook sees the text of a statement this package sends with real
// parameters, before it is sent.
type StatementHook func(ctx context.Context, query string)

var (
	hooksMu sync.Mutex
	// statementHooks holds the hooks per database.
	statementHooks sync.Map // *bun.DB → []StatementHook
	// hooked spares the lookup while no hook was ever added (production).
	hooked atomic.Bool
)

// AddStatementHook registers h for the statements sent on db (on its pool or
// in its transactions).
func AddStatementHook(db *bun.DB, h StatementHook) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	var hs []StatementHook
	if v, ok := statementHooks.Load(db); ok {
		hs = v.([]StatementHook)
	}
	statementHooks.Store(db, append(hs[:len(hs):len(hs)], h))
	hooked.Store(true)
}

// direct returns what can run a parameterised query on db, and the bun.DB it
// belongs to; ok is false when db is neither a pool nor a transaction (the
// caller then uses the ordinary bun query).
func direct(db bun.IDB) (q querier, owner func() *bun.DB, ok bool) {
	switch d := db.(type) {
	case *bun.DB:
		return d.DB, func() *bun.DB { return d }, true
	case bun.Tx:
		return d.Tx, func() *bun.DB { return d.NewSelect().DB() }, true
	default:
		return nil, nil, false
	}
}

// query sends text with args as parameters, traced as name, and hands the
// rows to scan: pgx's when viaPgx and db is a pool (pgxscan.go), else
// database/sql's. ok is false when db cannot be addressed directly.
func query(ctx context.Context, db bun.IDB, name, text string, args []any, viaPgx bool, scan func(context.Context, rows) error) (ok bool, err error) {
	q, owner, ok := direct(db)
	if !ok {
		return false, nil
	}
	if hooked.Load() {
		if hs, found := statementHooks.Load(owner()); found {
			for _, h := range hs.([]StatementHook) {
				h(ctx, text)
			}
		}
	}
	span := trace.SpanFromContext(context.Background()) // a no-op: a statement run untraced records nothing
	if !telemetry.IsUntraced(ctx) {
		ctx, span = telemetry.Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.statement", text), attribute.String("db.system", "postgresql")))
		defer span.End()
	}
	if pool, isPool := db.(*bun.DB); isPool && viaPgx {
		if err := onPgx(ctx, pool, text, args, scan); err != nil {
			span.SetStatus(codes.Error, "query failed")
			return true, database.Error(err)
		}
		return true, nil
	}
	rs, err := q.QueryContext(ctx, text, args...)
	if err != nil {
		span.SetStatus(codes.Error, "query failed")
		return true, database.Error(err)
	}
	defer rs.Close()
	if err := scan(ctx, rows{sql: rs}); err != nil {
		span.SetStatus(codes.Error, "query failed")
		return true, database.Error(err)
	}
	return true, database.Error(rs.Close())
}

// param returns the value sent for v: a UUID as a pgtype.UUID, which pgx
// encodes in the binary format directly (and, in the pooler's exec mode,
// which infers parameter types from Go types, sends as uuid). uuid.UUID and
// tenancy.OrganizationID are driver.Valuers: pgx takes their string, fails
// to encode that in binary (building the error with fmt.Errorf), parses it
// back and encodes the result (bench/HISTORY.md).
func param(v any) any {
	switch v := v.(type) {
	case uuid.UUID:
		return pgtype.UUID{Bytes: v, Valid: true}
	case tenancy.OrganizationID:
		return pgtype.UUID{Bytes: v.UUID, Valid: true}
	}
	return v
}

// getByID loads the record id of org with a prepared, parameterised query.
// ok is false when db is not a pool or transaction it can address directly;
// the caller then uses the ordinary bun query.
func getByID[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, kind string) (m *T, ok bool, err error) {
	typ := reflect.TypeFor[T]()
	text, found := getText.Load(typ)
	if !found {
		text = scanner.NewSelect().Model((*T)(nil)).
			Where("?TableAlias.organization_id = $1").
			Where("?TableAlias.id = $2").
			Limit(1).String()
		getText.Store(typ, text)
	}
	notFound := false
	ok, err = query(ctx, db, "SELECT "+kind, text.(string), []any{param(org), param(id)}, pgxScannable[T](), func(ctx context.Context, rs rows) error {
		if !rs.next() {
			notFound = rs.err() == nil
			return rs.err()
		}
		m = new(T)
		return scanOne(ctx, rs, m)
	})
	if ok && err == nil && notFound {
		return nil, true, errs.NotFoundOf(kind)
	}
	if err != nil {
		m = nil
	}
	return m, ok, err
}

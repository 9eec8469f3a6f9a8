package storage

import (
	"context"
	"database/sql"
	"reflect"
	"sync"

	"github.com/google/uuid"
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

// bun writes argument values into the SQL text, so a detail query by id is a
// new statement every time and PostgreSQL parses and plans each one. The
// detail lookup is the hottest query of the API, so it is sent here with real
// parameters ($1 organization, $2 id): the text is constant per model, pgx
// keeps it prepared, and each call is a single Bind/Execute. Behind a
// transaction pooler (EVENTAPI_DATABASE_POOLER=transaction) pgx prepares
// nothing and sends the same text as one unnamed parse-bind-execute round
// trip instead (platform/database/pooler.go).

// scanner scans rows into bun models; it never runs a query itself.
var scanner = bun.NewDB(nil, pgdialect.New())

// getText caches the parameterised query per model type.
var getText sync.Map // reflect.Type → string

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// getByID loads the record id of org with a prepared, parameterised query.
// ok is false when db is not a pool or transaction it can address directly;
// the caller then uses the ordinary bun query.
func getByID[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, kind string) (m *T, ok bool, err error) {
	var q querier
	switch d := db.(type) {
	case *bun.DB:
		q = d.DB
	case bun.Tx:
		q = d.Tx
	default:
		return nil, false, nil
	}
	typ := reflect.TypeFor[T]()
	text, found := getText.Load(typ)
	if !found {
		text = scanner.NewSelect().Model((*T)(nil)).
			Where("?TableAlias.organization_id = $1").
			Where("?TableAlias.id = $2").
			Limit(1).String()
		getText.Store(typ, text)
	}
	ctx, span := telemetry.Tracer().Start(ctx, "SELECT "+kind, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", "postgresql"), attribute.String("db.statement", text.(string))))
	defer span.End()
	rows, err := q.QueryContext(ctx, text.(string), org, id)
	if err != nil {
		span.SetStatus(codes.Error, "query failed")
		return nil, true, database.Error(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			span.SetStatus(codes.Error, "query failed")
			return nil, true, database.Error(err)
		}
		return nil, true, errs.NotFoundf(kind)
	}
	m = new(T)
	if err := scanner.ScanRow(ctx, rows, m); err != nil {
		span.SetStatus(codes.Error, "scan failed")
		return nil, true, database.Error(err)
	}
	return m, true, database.Error(rows.Close())
}

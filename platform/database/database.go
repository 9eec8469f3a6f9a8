// Package database opens PostgreSQL through bun (pgx driver, OpenTelemetry
// hook, bounded pool), runs the embedded SQL migrations, and turns driver
// errors into *errs.Error so that no PostgreSQL text ever reaches a client.
package database

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/extra/bunotel"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// sqlSpans is bunotel's query hook without its Init, which bun calls when a
// hook is added and which would report the pool's statistics: a second copy
// of the go_sql_connections_* series that the service reports with otelsql
// (labelled db_name="eventapi" whatever the database, and present only with
// tracing on). It makes no span for a statement run under
// telemetry.Untraced.
type sqlSpans struct{ hook bun.QueryHook }

func (s sqlSpans) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if telemetry.IsUntraced(ctx) {
		return ctx
	}
	spanCtx := s.hook.BeforeQuery(ctx, e)
	if e.Query == "BEGIN" && trace.SpanContextFromContext(ctx).IsValid() {
		// bun keeps BEGIN's returned context as the transaction's (COMMIT,
		// ROLLBACK and RunInTx's fn use it): hand back the caller's, and
		// end the BEGIN span from the stash. Without a parent (background
		// work) BEGIN stays the root its statements group under.
		if e.Stash == nil {
			e.Stash = map[any]any{}
		}
		e.Stash[beginSpanKey{}] = spanCtx
		return ctx
	}
	return spanCtx
}

type beginSpanKey struct{}

func (s sqlSpans) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if telemetry.IsUntraced(ctx) {
		return
	}
	if c, ok := e.Stash[beginSpanKey{}].(context.Context); ok {
		ctx = c
	}
	s.hook.AfterQuery(ctx, rawNamed(e))
}

// rawNamed returns e with the operation of a raw statement read from its
// text. bun names every raw statement SELECT, so bunotel's span of an
// INSERT, UPDATE or DELETE written as SQL (a v2 create, the
// Idempotency-Key rows, the retention jobs) was named SELECT and carried
// db.operation=SELECT. The statement's first word, past the comments the
// tenant convention puts before it (docs/architecture.md), names it now;
// everything else, db.statement among it (the text without its values),
// still comes from bun's query.
func rawNamed(e *bun.QueryEvent) *bun.QueryEvent {
	if _, raw := e.IQuery.(*bun.RawQuery); !raw {
		return e
	}
	named := *e
	named.IQuery = rawStatement{Query: e.IQuery, operation: firstWord(withoutLeadingComments(e.Query))}
	return &named
}

// rawStatement is a raw query that reports its own operation.
type rawStatement struct {
	bun.Query
	operation string
}

func (r rawStatement) Operation() string { return r.operation }

// firstWord is a statement's first word, at most 16 bytes, as bun names
// the operation of a statement it did not build.
func firstWord(q string) string {
	if i := strings.IndexFunc(q, unicode.IsSpace); i > 0 {
		q = q[:i]
	}
	if len(q) > 16 {
		q = q[:16]
	}
	return q
}

// afterBlockComment returns what follows the block comment q opens with;
// block comments nest in PostgreSQL. "" when it does not end.
func afterBlockComment(q string) string {
	depth := 0
	for i := 0; i+1 < len(q); i++ {
		switch q[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return q[i+1:]
			}
		}
	}
	return ""
}

// withoutLeadingComments cuts the white space and the /* */ and -- comments
// that come before a statement's first keyword.
func withoutLeadingComments(q string) string {
	for {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		switch {
		case strings.HasPrefix(q, "/*"):
			q = afterBlockComment(q)
		case strings.HasPrefix(q, "--"):
			end := strings.IndexByte(q, '\n')
			if end < 0 {
				return ""
			}
			q = q[end+1:]
		default:
			return q
		}
	}
}

// Options tunes the connection pool.
type Options struct {
	MaxOpenConns int
	// Tracing adds the bun OpenTelemetry hook (SQL spans; not its pool
	// statistics, see sqlSpans).
	Tracing bool
	// Pooler is the pooler between the service and PostgreSQL: "" or
	// "none" (direct), or "transaction" (PgBouncer pool_mode=transaction:
	// no statement is kept prepared across transactions and no session
	// parameter is sent; see pooler.go).
	Pooler string
	// StatementTimeout is the statement_timeout a direct connection sends
	// at connect, unless the URL names one; zero: DefaultStatementTimeout.
	// Behind a transaction pooler none is sent (pooler.go).
	StatementTimeout time.Duration
	// OnNotice, when set, is called with the message of each notice a
	// statement raises itself (RAISE NOTICE, SQLSTATE 00000), such as a
	// migration's word that it changed nothing (20261212010000 on a server
	// without lz4), which would otherwise reach nobody. PostgreSQL's own
	// notices ("already exists, skipping") are not passed on.
	OnNotice func(message string)
}

// Open connects to url, verifies the connection and returns a bun.DB.
func Open(ctx context.Context, url string, opt Options) (*bun.DB, error) {
	cfg, err := pgxConfig(url, opt)
	if err != nil {
		return nil, err
	}
	connector := stdlib.GetConnector(*cfg, stdlib.OptionAfterConnect(scanTimesInUTC))
	// Behind a transaction pooler every query runs in exec mode already; a
	// mode given in the URL is the operator's choice.
	if opt.Pooler != PoolerTransaction && !strings.Contains(url, "default_query_exec_mode") {
		connector = prepareOnReuse(connector)
	}
	sqldb := sql.OpenDB(connector)
	if opt.MaxOpenConns <= 0 {
		opt.MaxOpenConns = 20
	}
	sqldb.SetMaxOpenConns(opt.MaxOpenConns)
	sqldb.SetMaxIdleConns(opt.MaxOpenConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	sqldb.SetConnMaxLifetime(time.Hour)
	db := bun.NewDB(sqldb, pgdialect.New(), bun.WithDiscardUnknownColumns())
	if opt.Tracing {
		// Spans name the database connected to. bunotel's own histogram
		// (go.sql.query_timing, labelled with a table name guessed from the
		// SQL text) is not exported: /metrics must not change with tracing,
		// and the request duration by route is the latency SREs read
		// (docs/observability.md, "Metrics").
		db = db.WithQueryHook(sqlSpans{bunotel.NewQueryHook(bunotel.WithDBName(cfg.Database),
			bunotel.WithMeterProvider(noop.NewMeterProvider()))})
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", poolerHint(err))
	}
	return db, nil
}

// RunInTx runs fn in a transaction on db, committing when fn returns nil.
// On a pool or connection a serialization failure or deadlock runs fn again
// in a new transaction (see RunInTxWith); fn must therefore have no effect
// outside the transaction that a second run would repeat.
func RunInTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context, tx bun.Tx) error) error {
	return RunInTxWith(ctx, db, &sql.TxOptions{}, fn)
}

package database

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// PoolerTransaction is the Options.Pooler value for a PgBouncer-style
// transaction pooler (EVENTAPI_DATABASE_POOLER=transaction).
const PoolerTransaction = "transaction"

// forTransactionPooler makes cfg safe behind a pooler that gives each
// transaction (and each statement outside one) whichever server connection
// is free, as PgBouncer 1.18 does with pool_mode = transaction:
//
//   - no named prepared statement: a statement prepared on one server
//     connection would be missing, or a different one, on the next. Queries
//     use pgx's QueryExecModeExec: Parse of the unnamed statement, Bind and
//     Execute in one round trip, parameters in text form, typed by
//     PostgreSQL from the query. Nothing outlives the round trip. The
//     statements sent with PlanEachCall are unnamed too (Parse, Bind and
//     Execute in one round trip); only their description, the parameter
//     and column types, is kept by pgx, and it holds on every server
//     connection of the database alike.
//   - no startup parameter beyond the ones PgBouncer tracks and restores per
//     client (TimeZone, application_name): PgBouncer refuses the others, so
//     the default statement_timeout is not sent (one named in the URL is
//     kept, for a PgBouncer that lists it in ignore_startup_parameters). Set
//     it on the role or database instead
//     (ALTER ROLE … SET statement_timeout = '15s', see docs/helm.md).
//
// The service itself takes no session advisory lock and runs no SET outside
// a transaction (the migration lock is transaction-scoped, see migrate_lock.go).
func forTransactionPooler(cfg *pgx.ConnConfig) {
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.StatementCacheCapacity = 0
}

// NoStatementTimeout reports whether db's sessions run without a
// statement_timeout (SHOW statement_timeout answers 0). Behind a
// transaction pooler none is sent at connect, so the role's or the
// database's setting is the only backstop for a statement whose cancel is
// lost; the service warns at start when there is none (docs/helm.md,
// "Redis Cluster and PgBouncer").
func NoStatementTimeout(ctx context.Context, db bun.IDB) (bool, error) {
	var setting string
	if err := db.NewRaw("SHOW statement_timeout").Scan(ctx, &setting); err != nil {
		return false, Error(err)
	}
	return setting == "0", nil
}

package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
)

// InstallationIdentity returns the identity of the database: the uuid that
// migration 20261212010000 drew once and stored in installation_identity.
// The operator claims its objects with it (docs/operator.md, "One
// database per object"). A schema without the table (migrations not yet
// run) is an error that says so.
func InstallationIdentity(ctx context.Context, db bun.IDB) (uuid.UUID, error) {
	var id uuid.UUID
	err := db.NewRaw("SELECT id FROM installation_identity").Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) || isUndefinedTable(err) {
		return uuid.Nil, fmt.Errorf("the database has no installation identity: run `eventapi migrate up`")
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("read the database's installation identity: %w", err)
	}
	return id, nil
}

// undefinedTable is PostgreSQL's SQLSTATE 42P01.
const undefinedTable = "42P01"

func isUndefinedTable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == undefinedTable
}

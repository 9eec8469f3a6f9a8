package database_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestConstraintFieldsAreMigrated: each constraint database.Error names a
// field for by its name is a check constraint of a migrated database, and
// its violation, as the server reports it (the table, no column), is 422
// naming that field. A migration that renames or drops one fails here.
func TestConstraintFieldsAreMigrated(t *testing.T) {
	db := pgtest.Open(t)
	names := slices.Sorted(maps.Keys(database.ConstraintFields))
	var rows []struct {
		Name  string `bun:"name"`
		Table string `bun:"table"`
	}
	err := db.NewRaw(`SELECT c.conname AS name, r.relname AS table
		FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
		WHERE c.contype = 'c' AND c.conname IN (?)`, bun.List(names)).Scan(context.Background(), &rows)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]string{}
	for _, r := range rows {
		tables[r.Name] = r.Table
	}
	for _, name := range names {
		table, ok := tables[name]
		if !ok {
			t.Errorf("%s is not a check constraint of the migrated database", name)
			continue
		}
		e := errs.As(database.Error(&pgconn.PgError{Code: pgerrcode.CheckViolation, TableName: table, ConstraintName: name}))
		d, ok := e.Details.(errs.ValidationDetails)
		if e.Code != errs.Validation || !ok || len(d.Fields) != 1 || d.Fields[0].Field != database.ConstraintFields[name] {
			t.Errorf("%s violated: %s %+v, want a validation_error naming %s", name, e.Code, e.Details, database.ConstraintFields[name])
		}
	}
}

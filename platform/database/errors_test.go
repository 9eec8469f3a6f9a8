package database

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestForeignKeyViolations: a reference to a record that does not exist is
// 422 naming its field; a missing organization of the request itself (gone
// while a key's cached resolution still named it) is 503 with Retry-After,
// since no field of the body is wrong.
func TestForeignKeyViolations(t *testing.T) {
	for _, tt := range []struct {
		table, constraint string
		code              errs.Code
		field             string
	}{
		{"events", "events_client_id_fkey", errs.Validation, "client_id"},
		{"clients", "clients_organization_id_fkey", errs.ServiceUnavailable, ""},
	} {
		e := errs.As(Error(&pgconn.PgError{Code: pgerrcode.ForeignKeyViolation, TableName: tt.table, ConstraintName: tt.constraint}))
		if e.Code != tt.code {
			t.Errorf("%s: %s, want %s", tt.constraint, e.Code, tt.code)
			continue
		}
		if d, ok := e.Details.(errs.ValidationDetails); tt.field != "" && (!ok || d.Fields[0].Field != tt.field) {
			t.Errorf("%s: details %+v, want field %s", tt.constraint, e.Details, tt.field)
		}
	}
}

// TestEndedRequestsAreUnavailable: errors of a request whose context ended
// are 503 (with Retry-After, as every 503: rest.ErrorHandler), never a
// 500: a cancelled statement, and a COMMIT that finds its transaction
// already rolled back (database/sql does that when the context ends
// between the last statement and the COMMIT).
func TestEndedRequestsAreUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"cancelled", context.Canceled},
		{"commit after the context ended", sql.ErrTxDone},
		{"wrapped", fmt.Errorf("commit: %w", sql.ErrTxDone)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := errs.As(Error(tt.err))
			if e.Code != errs.ServiceUnavailable {
				t.Fatalf("%v → %s, want service_unavailable", tt.err, e.Code)
			}
		})
	}
}

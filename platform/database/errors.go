package database

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eventapi/eventapi/platform/errs"
)

// Error converts a database error into an *errs.Error. Constraint violations
// become duplicate_record (409) or validation_error (422); a lost or refused
// connection, a database that refuses writes (read-only) and one short of
// resources (SQLSTATE class 53) become service_unavailable with Retry-After;
// anything else internal_error. The
// original error is kept as the hidden Cause, never as client text.
func Error(err error) error {
	if err == nil {
		return nil
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &errs.Error{Code: errs.NotFound, Message: "record not found", Cause: err}
	}
	if errors.Is(err, context.Canceled) {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "request cancelled", Cause: err}
	}
	// database/sql rolls a transaction back as soon as its context ends
	// (the request's deadline, the drain abandoning it), and its COMMIT
	// then finds it done: nothing was committed, and a retry is safe.
	if errors.Is(err, sql.ErrTxDone) {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "the request's transaction ended before it committed (a timeout or the server shutting down); retry", Cause: err}
	}
	// A failure to connect wraps the server's own error (for example 55000
	// when the database refuses connections): it is unavailability, whatever
	// the inner code says.
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "database unavailable", Cause: err}
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return fromPgError(pg, err)
	}
	if isConnectionError(err) {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "database unavailable", Cause: err}
	}
	return errs.Wrap(err, "internal error")
}

// classInsufficientResources is the SQLSTATE class of 53000 to 53400;
// pgerrcode.IsInsufficientResources lists only the codes known today.
const classInsufficientResources = "53"

// HasCode reports whether err is, or wraps, a PostgreSQL error with one of
// the SQLSTATE codes (pgerrcode's constants).
func HasCode(err error, codes ...string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && slices.Contains(codes, pg.Code)
}

func fromPgError(pg *pgconn.PgError, cause error) error {
	field := constraintField(pg.TableName, pg.ConstraintName, pg.ColumnName)
	switch pg.Code {
	case pgerrcode.UniqueViolation:
		return &errs.Error{Code: errs.DuplicateRecord, Message: "a record with these values already exists", Cause: cause,
			Details: map[string]any{"field": field}}
	case pgerrcode.ForeignKeyViolation:
		if field == "organization_id" {
			// The request's own organization is gone (a sandbox deleted, or
			// an organization removed, while a key's cached resolution,
			// tenancy.CacheTTL, still named it): no field of the body is
			// wrong, and a retry resolves the key afresh.
			return &errs.Error{Code: errs.ServiceUnavailable, Message: "the key's organization changed; retry", Cause: cause}
		}
		return &errs.Error{Code: errs.Validation, Message: "a referenced record does not exist", Cause: cause,
			Details: errs.ValidationDetails{Fields: []errs.FieldIssue{{Field: field, Issue: "references a record that does not exist"}}}}
	case pgerrcode.NotNullViolation, pgerrcode.CheckViolation, pgerrcode.StringDataRightTruncationDataException,
		pgerrcode.NumericValueOutOfRange, pgerrcode.InvalidDatetimeFormat, pgerrcode.DatetimeFieldOverflow,
		pgerrcode.InvalidTextRepresentation, pgerrcode.InvalidParameterValue, pgerrcode.CharacterNotInRepertoire,
		pgerrcode.UntranslatableCharacter:
		return &errs.Error{Code: errs.Validation, Message: "a value is not acceptable", Cause: cause,
			Details: errs.ValidationDetails{Fields: []errs.FieldIssue{{Field: field, Issue: "invalid value"}}}}
	case pgerrcode.SerializationFailure, pgerrcode.DeadlockDetected: // left after RunInTx's retries
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "concurrent update, retry", Cause: cause}
	case pgerrcode.QueryCanceled: // a statement timeout, or a request cancelled (its deadline, the shutdown timeout)
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "the database statement was cancelled (a timeout or the server shutting down); retry", Cause: cause}
	case pgerrcode.AdminShutdown, pgerrcode.CrashShutdown, pgerrcode.CannotConnectNow, pgerrcode.DatabaseDropped,
		pgerrcode.IdleSessionTimeout:
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "database unavailable", Cause: cause}
	case pgerrcode.ReadOnlySQLTransaction:
		// The database refuses writes for now (a hot standby, a primary
		// set default_transaction_read_only, a managed database that went
		// read-only at full disk): reads go on, and a write may succeed
		// once it accepts them again.
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "the database accepts no writes at the moment; retry later", Cause: cause}
	}
	// Class 53, insufficient resources (disk full, out of memory, too many
	// connections): the server's state, not the request's, and gone when
	// the server recovers. 53400, a configuration limit such as
	// temp_file_limit, is the statement's own, like 54000: a retry meets
	// it again, so it stays an internal error that alerts.
	if pgerrcode.IsConnectionException(pg.Code) ||
		strings.HasPrefix(pg.Code, classInsufficientResources) && pg.Code != pgerrcode.ConfigurationLimitExceeded {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "database unavailable", Cause: cause}
	}
	return errs.Wrap(cause, "internal error")
}

// constraintField names the API field a constraint protects: the column
// the server names, else the field of a constraint listed in
// constraintFields, else what its name says. Constraints are named
// <table>_<column>_<kind> (fkey, key, check, idx); any other name is the
// body's.
func constraintField(table, constraint, column string) string {
	if column != "" {
		return column
	}
	if f, ok := constraintFields[constraint]; ok {
		return f
	}
	name := constraint
	for _, suffix := range []string{"_fkey", "_key", "_check", "_idx"} {
		if strings.HasSuffix(name, suffix) {
			name = strings.TrimSuffix(name, suffix)
			break
		}
	}
	if table != "" && strings.HasPrefix(name, table+"_") && name != constraint {
		return strings.TrimPrefix(name, table+"_")
	}
	return "body"
}

// constraintFields maps the constraints of the migrations (migrations/)
// whose names do not say the field they guard to that field, the one the
// request's own check names for the same rule: end_date for a window's
// dates, equipment_id for a pick list item that names nothing to pick.
// Read only; a test checks that each constraint exists in a migrated
// database.
var constraintFields = map[string]string{
	"events_dates_check":                 "end_date",
	"equipment_reservations_dates_check": "end_date",
	"pick_list_items_what_check":         "equipment_id",
}

func isConnectionError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "conn closed") ||
		strings.Contains(msg, "driver: bad connection") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "broken pipe")
}

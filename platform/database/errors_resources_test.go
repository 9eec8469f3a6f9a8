package database

import (
	"strings"
	"testing"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestServerStateIsUnavailable: a database that refuses writes (25006) or
// lacks resources (class 53, a code pgerrcode does not list included, but
// not 53400, a limit the statement itself meets) is the server's state, not the request's: 503 service_unavailable with
// Retry-After, the database's text kept out of the message. Neighbouring
// codes keep their own mapping.
func TestServerStateIsUnavailable(t *testing.T) {
	for _, tt := range []struct {
		code string
		want errs.Code
	}{
		{pgerrcode.ReadOnlySQLTransaction, errs.ServiceUnavailable},
		{pgerrcode.InsufficientResources, errs.ServiceUnavailable},
		{pgerrcode.DiskFull, errs.ServiceUnavailable},
		{pgerrcode.OutOfMemory, errs.ServiceUnavailable},
		{pgerrcode.TooManyConnections, errs.ServiceUnavailable},
		{pgerrcode.ConfigurationLimitExceeded, errs.Internal}, // 53400: temp_file_limit, the statement's own
		{"53999", errs.ServiceUnavailable},
		{pgerrcode.ProgramLimitExceeded, errs.Internal},   // 54000: the statement's own limit
		{pgerrcode.InFailedSQLTransaction, errs.Internal}, // 25P02: a bug of ours
		{pgerrcode.SyntaxError, errs.Internal},
	} {
		t.Run(tt.code, func(t *testing.T) {
			e := errs.As(Error(&pgconn.PgError{Code: tt.code, Message: "could not extend file: No space left on device"}))
			if e.Code != tt.want {
				t.Fatalf("%s → %s, want %s", tt.code, e.Code, tt.want)
			}
			if strings.Contains(e.Message, "No space") {
				t.Fatalf("%s: message %q repeats the database's text", tt.code, e.Message)
			}
		})
	}
}

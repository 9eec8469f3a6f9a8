package database

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// scanTimesInUTC makes conn return every timestamptz it reads in UTC.
// PostgreSQL sends an instant without a zone (binary) or in the session's
// zone (text, UTC here); pgx puts it in the process's local zone unless told
// otherwise, so a pod started with TZ set rendered every date-time with that
// zone's offset, against the documented "returned in UTC"
// (docs/decisions.md, "Date-times"), and east of UTC a stored
// 9999-12-31T23:59:59Z became a year-10000 time that JSON cannot write.
func scanTimesInUTC(_ context.Context, conn *pgx.Conn) error {
	conn.TypeMap().RegisterType(&pgtype.Type{
		Name:  "timestamptz",
		OID:   pgtype.TimestamptzOID,
		Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
	})
	return nil
}

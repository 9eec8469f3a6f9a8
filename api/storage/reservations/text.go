package reservations

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// MaxText is the most text of the reservations one answer inlines, counted
// as the answer carries it (storage.JSONTextSize: escaped, so a < counts
// six bytes): their notes, truck positions and overbook reasons. A
// count bound (planning.MaxHolds, events.MaxInlined) bounds how many
// reservations an answer holds, not how large they are: within each
// field's own limits a load of 4,968 reservations can be a 204 MB
// answer, and one read of it takes a pod from 39 MB to 977 MB
// (docs/architecture.md, "Memory"). With it a load of 5,000 with
// their equipment and vehicle stays under about 14 MB.
const MaxText = 8 << 20

// textSQL is a reservation's text as an answer carries it, escaped
// (storage.JSONTextSize).
var textSQL = storage.JSONTextSizeSQL("r.notes") + " + " + storage.JSONTextSizeSQL("r.truck_position") + " + " +
	storage.JSONTextSizeSQL("r.overbook_reason")

// ErrTooMuchText is the answer of a read whose reservations hold more than
// MaxText (CheckText).
var ErrTooMuchText = errors.New("the reservations hold more text than one answer inlines")

// TooMuchTextIssue is the 422 issue of a read refused with ErrTooMuchText,
// naming the fields textSQL counts: whose names what holds the
// reservations ("the window's"), ask how to read them instead.
func TooMuchTextIssue(whose, ask string) string {
	return fmt.Sprintf("%s reservations hold more than %d bytes of notes, truck positions and overbook reasons, more than one answer inlines: %s",
		whose, MaxText, ask)
}

// CheckText returns ErrTooMuchText when org's reservations that where
// selects (on the alias r) hold more than MaxText. It is asked before the
// reservations are read, so a refused read loads none of them, and it
// reads at most limit of them, as the read it stands before does (a read
// of more is refused for their number).
func CheckText(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, limit int, where func(*bun.SelectQuery) *bun.SelectQuery) error {
	rows := where(db.NewSelect().TableExpr("equipment_reservations AS r").
		ColumnExpr(textSQL+" AS n").
		Where("r.organization_id = ?", org)).Limit(int64(limit))
	var n int64
	if err := db.NewSelect().TableExpr("(?) AS t", rows).ColumnExpr("coalesce(sum(t.n), 0)").Scan(ctx, &n); err != nil {
		return database.Error(err)
	}
	if n > MaxText {
		return ErrTooMuchText
	}
	return nil
}

package reservations

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// MaxNamed bounds the reservations a warning names (Named); Count
// counts them all.
const MaxNamed = stock.MaxNamed

// Named is what a warning says of the reservations it is about: how many,
// and the first MaxNamed of them, in the order the warning states (oldest
// first; overdue_returns: the longest overdue first).
type Named struct {
	Count          int         `json:"count"`
	ReservationIDs []uuid.UUID `json:"reservation_ids"`
}

// named returns org's reservations that meet cond (SQL over the alias r,
// with its args), as Named; nil when there is none.
func named(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, cond string, args ...any) (*Named, error) {
	var rows []struct {
		ID    uuid.UUID `bun:"id"`
		Count int       `bun:"count"`
	}
	err := db.NewSelect().TableExpr("equipment_reservations AS r").
		ColumnExpr("r.id, count(*) OVER () AS count").
		Where("r.organization_id = ?", org).Where(cond, args...).
		OrderExpr("r.created_at, r.id").Limit(MaxNamed).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return nil, database.Error(err)
	}
	out := &Named{Count: rows[0].Count, ReservationIDs: make([]uuid.UUID, len(rows))}
	for i, r := range rows {
		out.ReservationIDs[i] = r.ID
	}
	return out, nil
}

// Outside is what a move of an event's dates left behind: its reservations
// holding stock that overlapped its old window and do not overlap
// [WindowStart, WindowEnd), the new one. They hold their units on other
// days, and a truck's load asked by the event (GET
// /vehicles/{id}/load?event_id=) leaves them out.
type Outside struct {
	Named
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
}

// Moved is an event's dates before and after a move.
type Moved struct {
	FromStart, FromEnd time.Time
	Start, End         time.Time
}

// OutsideEvent returns the reservations of org's event that hold stock
// (status reserved or checked_out), overlapped the event's old dates and
// do not overlap its new ones, oldest first, the first MaxNamed
// named; nil when there is none.
func OutsideEvent(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, event uuid.UUID, m Moved) (*Outside, error) {
	// Held stock over the old dates (the stock rule's condition), and not
	// overlapping the new ones.
	held, args := stock.Holding("r", stock.Window{Start: m.FromStart, End: m.FromEnd})
	n, err := named(ctx, db, org, "r.event_id = ? AND "+held+" AND NOT (tstzrange(r.start_date, r.end_date) && tstzrange(?, ?))",
		slices.Concat([]any{event}, args, []any{m.Start, m.End})...)
	if err != nil || n == nil {
		return nil, err
	}
	return &Outside{Named: *n, WindowStart: m.Start, WindowEnd: m.End}, nil
}

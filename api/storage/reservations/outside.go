package reservations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// MaxOutsideNamed bounds the reservations an Outside answer names; Count
// counts them all.
const MaxOutsideNamed = 100

// Outside is what an event's reservations that hold stock do not share
// with its dates: those that do not overlap [WindowStart, WindowEnd), the
// event's window. They hold their units on other days, and a truck's load
// asked by the event (GET /vehicles/{id}/load?event_id=) leaves them out.
type Outside struct {
	Count          int         `json:"count"`
	ReservationIDs []uuid.UUID `json:"reservation_ids"`
	WindowStart    time.Time   `json:"window_start"`
	WindowEnd      time.Time   `json:"window_end"`
}

// OutsideEvent returns the reservations of org's event that hold stock
// (status reserved or checked_out) and do not overlap [start, end), oldest
// first, the first MaxOutsideNamed named; nil when there is none.
func OutsideEvent(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, event uuid.UUID, start, end time.Time) (*Outside, error) {
	var rows []struct {
		ID    uuid.UUID `bun:"id"`
		Count int       `bun:"count"`
	}
	err := db.NewRaw(`SELECT r.id, count(*) OVER () AS count FROM equipment_reservations r
		WHERE r.organization_id = ? AND r.event_id = ? AND r.reservation_status IN (?)
		  AND NOT (tstzrange(r.start_date, r.end_date) && tstzrange(?, ?))
		ORDER BY r.created_at, r.id LIMIT ?`,
		org.UUID, event, bun.List(stock.HoldingStatuses), start, end, MaxOutsideNamed).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return nil, database.Error(err)
	}
	out := &Outside{Count: rows[0].Count, ReservationIDs: make([]uuid.UUID, len(rows)), WindowStart: start, WindowEnd: end}
	for i, r := range rows {
		out.ReservationIDs[i] = r.ID
	}
	return out, nil
}

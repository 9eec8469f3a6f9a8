package reservations

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Held is what an event that ended (cancelled or completed) still holds:
// its reservations whose status counts against stock (stock.HoldingStatuses),
// whatever their dates. They keep their units on their own days, and a
// checked-out one has not come back.
type Held struct {
	Count          int         `json:"count"`
	ReservationIDs []uuid.UUID `json:"reservation_ids"`
	// EventStatus is the status the write gave the event.
	EventStatus string `json:"event_status"`
}

// HeldByEvent returns the reservations of org's event whose status holds
// stock, oldest first, the first MaxOutsideNamed named; nil when there is
// none. status is the event's new status, for the answer.
func HeldByEvent(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, event uuid.UUID, status string) (*Held, error) {
	var rows []struct {
		ID    uuid.UUID `bun:"id"`
		Count int       `bun:"count"`
	}
	err := db.NewRaw(`SELECT r.id, count(*) OVER () AS count FROM equipment_reservations r
		WHERE r.organization_id = ? AND r.event_id = ? AND r.reservation_status IN (?)
		ORDER BY r.created_at, r.id LIMIT ?`,
		org.UUID, event, bun.List(stock.HoldingStatuses), MaxOutsideNamed).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return nil, database.Error(err)
	}
	out := &Held{Count: rows[0].Count, ReservationIDs: make([]uuid.UUID, len(rows)), EventStatus: status}
	for i, r := range rows {
		out.ReservationIDs[i] = r.ID
	}
	return out, nil
}

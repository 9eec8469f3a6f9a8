package reservations

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/tenancy"
)

// Held is what an event that ended (cancelled or completed) still holds:
// its reservations whose status counts against stock (stock.HoldingStatuses),
// whatever their dates. They keep their units on their own days, and a
// checked-out one has not come back.
type Held struct {
	Named
	// EventStatus is the status the write gave the event.
	EventStatus string `json:"event_status"`
}

// HeldByEvent returns the reservations of org's event whose status holds
// stock, oldest first, the first MaxNamed named; nil when there is
// none. status is the event's new status, for the answer.
func HeldByEvent(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, event uuid.UUID, status string) (*Held, error) {
	n, err := named(ctx, db, org, "r.event_id = ? AND r.reservation_status IN (?)", event, bun.List(stock.HoldingStatuses))
	if err != nil || n == nil {
		return nil, err
	}
	return &Held{Named: *n, EventStatus: status}, nil
}

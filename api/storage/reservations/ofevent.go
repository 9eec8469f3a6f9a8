package reservations

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// OfEvent returns the first limit reservations of org for the event,
// whatever their status, in creation order. It is building an answer: when
// those limit hold more than MaxText it returns ErrTooMuchText and reads
// none of them (CheckText).
func OfEvent(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, event uuid.UUID, limit int) ([]Reservation, error) {
	ofEvent := func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("r.event_id = ?", event) }
	if err := CheckText(ctx, db, org, limit, ofEvent); err != nil {
		return nil, err
	}
	rs := []Reservation{}
	err := ofEvent(db.NewSelect().Model(&rs).Where("r.organization_id = ?", org)).
		OrderExpr("r.created_at, r.id").Limit(int64(limit)).Scan(ctx)
	return rs, database.Error(err)
}

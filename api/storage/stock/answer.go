package stock

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Answer is what the availability endpoints say of org's equipment records
// named in ids over w: each one's profile (Availability, bounded to max
// holds) and what is overdue before w (OverdueOf), both read in one
// snapshot (database.RunInSnapshot). Read as two statements on the pool,
// a write committed between them, such as a checked-out reservation's end
// moved before the window, would count that reservation both as held and
// as overdue, or as neither.
func Answer(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, w Window, max int) (map[uuid.UUID]Profile, map[uuid.UUID]Overdue, error) {
	var profiles map[uuid.UUID]Profile
	var overdue map[uuid.UUID]Overdue
	err := database.RunInSnapshot(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if profiles, err = Availability(ctx, tx, org, ids, w, max); err != nil {
			return err
		}
		overdue, err = OverdueOf(ctx, tx, org, ids, w, uuid.Nil)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return profiles, overdue, nil
}

package demo

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Refresh moves the showcase of t's organization (planner) back to next
// week: its event and the event's reservations, and the breakout
// reservation that makes the console short, by the time between where the
// event starts and where a seed at now would start it. A demo organization
// reused days after it was seeded (the CLI's demo command, run again by
// make run) then answers the README's planner walkthrough as a new one
// does. The rows are updated in place, so their changes reach the feed;
// nothing else of the organization moves. It does nothing when the event is
// gone (the showcase was deleted) or already starts where a seed would
// start it, and reports whether it moved anything.
func Refresh(ctx context.Context, db bun.IDB, t tenancy.Tenant, now time.Time) (moved bool, err error) {
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var eventID string
		var start time.Time
		err := tx.NewRaw(`SELECT id::text, start_date FROM events
			WHERE organization_id = ? AND name = ? ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
			t.Org.UUID, showcaseName).Scan(ctx, &eventID, &start)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		want, _ := showcaseDates(now)
		shift := want.Sub(start)
		if shift == 0 {
			return nil
		}
		by := shift.Microseconds()
		if _, err := tx.NewRaw(`UPDATE events
			SET start_date = start_date + ? * interval '1 microsecond', end_date = end_date + ? * interval '1 microsecond',
				updated_at = clock_timestamp()
			WHERE organization_id = ? AND id = ?`, by, by, t.Org.UUID, eventID).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewRaw(`UPDATE equipment_reservations
			SET start_date = start_date + ? * interval '1 microsecond', end_date = end_date + ? * interval '1 microsecond',
				updated_at = clock_timestamp()
			WHERE organization_id = ? AND (event_id = ?
				OR (event_id IS NULL AND notes = ? AND equipment_id IN
					(SELECT id FROM equipment WHERE organization_id = ? AND name = ?)))`,
			by, by, t.Org.UUID, eventID, breakoutNote, t.Org.UUID, shortItem).Exec(ctx); err != nil {
			return err
		}
		moved = true
		return nil
	})
	return moved, err
}

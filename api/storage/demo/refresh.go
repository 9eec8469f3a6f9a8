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

// Refresh moves the demo's timeline of t's organization back to where a seed
// at now puts it, so that the showcase (planner) is next week again: the
// demo's own events (those seedEvents and planner make, by name) and their
// reservations, and the breakout reservation that makes the console short,
// all by the time between where the showcase starts and where a seed at now
// would start it. Moving the whole timeline keeps the demo's weeks apart as
// seeded: the showcase alone, moved onto a week that an older event had
// reached meanwhile (the gala, on the same truck), overloaded the truck. A
// demo organization reused days after it was seeded (the CLI's demo
// command, run again by make run) then answers the README's planner
// walkthrough as a new one does. The rows are updated in place, so their
// changes reach the feed; the organization's other events, and their
// reservations, stay. It does nothing when the showcase is gone, already
// starts where a seed would start it, or was edited apart from its truck
// lines (its event moved, or a line, since the seed: the shift would then
// put the lines elsewhere than the event), and reports whether it moved
// anything.
func Refresh(ctx context.Context, db bun.IDB, t tenancy.Tenant, now time.Time) (moved bool, err error) {
	names := []string{showcaseName}
	for _, e := range demoEvents(now) {
		names = append(names, e.name)
	}
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var start time.Time
		var linesAtStart bool
		err := tx.NewRaw(`SELECT e.start_date, coalesce((SELECT bool_and(r.start_date = e.start_date) FROM equipment_reservations r
				WHERE r.organization_id = e.organization_id AND r.event_id = e.id), true)
			FROM events e
			WHERE e.organization_id = ? AND e.name = ? ORDER BY e.created_at, e.id LIMIT 1 FOR UPDATE OF e`,
			t.Org.UUID, showcaseName).Scan(ctx, &start, &linesAtStart)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		want, _ := showcaseDates(now)
		shift := want.Sub(start)
		if shift == 0 || !linesAtStart {
			return nil
		}
		by := shift.Microseconds()
		if _, err := tx.NewRaw(`WITH moved AS (
				UPDATE events
				SET start_date = start_date + ? * interval '1 microsecond', end_date = end_date + ? * interval '1 microsecond',
					updated_at = clock_timestamp()
				WHERE organization_id = ? AND name IN (?)
				RETURNING id
			)
			UPDATE equipment_reservations
			SET start_date = start_date + ? * interval '1 microsecond', end_date = end_date + ? * interval '1 microsecond',
				updated_at = clock_timestamp()
			WHERE organization_id = ? AND (event_id IN (SELECT id FROM moved)
				OR (event_id IS NULL AND notes = ? AND equipment_id IN
					(SELECT id FROM equipment WHERE organization_id = ? AND name = ?)))`,
			by, by, t.Org.UUID, bun.List(names), by, by, t.Org.UUID, breakoutNote, t.Org.UUID, shortItem).Exec(ctx); err != nil {
			return err
		}
		moved = true
		return nil
	})
	return moved, err
}

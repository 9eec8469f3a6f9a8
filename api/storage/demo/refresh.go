package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Refreshed is what Refresh did: Moved when it moved the timeline, else
// Skipped says why a due move was not made ("" when none was due).
type Refreshed struct {
	Moved   bool
	Skipped string
}

// Refresh moves the demo's timeline of t's organization back to where a seed
// at now puts it, so that the showcase (planner) is next week again: the
// demo's own events, their reservations and invoices, and the breakout reservation
// that makes the console short, all by the time between where the showcase
// starts and where a seed at now would start it. Moving the whole timeline
// keeps the demo's weeks apart as seeded: the showcase alone, moved onto a
// week that an older event had reached meanwhile (the gala, on the same
// truck), would overload the truck. A demo organization reused days after it
// was seeded (the CLI's demo command, run again by make run) then answers
// the README's planner walkthrough as a new one does. The rows are updated
// in place, so their changes reach the feed.
//
// Locks are taken in the order the API's writes take them, so that none
// waits for the other in a cycle: the events FOR NO KEY UPDATE (a
// reservation insert's foreign key takes KEY SHARE on its event, which
// that does not block), then the reservation rows, then their equipment
// (a reservation PATCH locks its row, then the equipment; a POST locks the
// equipment and inserts).
//
// The demo's own events are those with a demo name made by the seed, at
// or before the showcase (the seed's last event): an event of the
// organization's own stays, whatever its name. It does nothing when the
// showcase is gone, already starts where a seed would start it, or was
// edited apart from its truck lines (its event moved, or a line, since the
// seed: the shift would then put the lines elsewhere than the event). And
// it moves nothing when the move would oversell stock (refreshStock): the
// organization's own bookings may hold the week the demo moves onto.
func Refresh(ctx context.Context, db bun.IDB, t tenancy.Tenant, now time.Time) (Refreshed, error) {
	names := []string{showcaseName}
	for _, e := range demoEvents(now) {
		names = append(names, e.name)
	}
	var out Refreshed
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		out = Refreshed{} // a transaction run again starts afresh
		var start, seeded time.Time
		var linesAtStart bool
		err := tx.NewRaw(`SELECT e.start_date, e.created_at, coalesce((SELECT bool_and(r.start_date = e.start_date) FROM equipment_reservations r
				WHERE r.organization_id = e.organization_id AND r.event_id = e.id), true)
			FROM events e
			WHERE e.organization_id = ? AND e.name = ? ORDER BY e.created_at, e.id LIMIT 1 FOR NO KEY UPDATE OF e`,
			t.Org.UUID, showcaseName).Scan(ctx, &start, &seeded, &linesAtStart)
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
		var eventIDs []uuid.UUID
		if err := tx.NewRaw(`SELECT id FROM events WHERE organization_id = ? AND name IN (?) AND created_at <= ? ORDER BY id FOR NO KEY UPDATE`,
			t.Org.UUID, bun.List(names), seeded).Scan(ctx, &eventIDs); err != nil {
			return err
		}
		var lines []movedLine
		if err := tx.NewRaw(`SELECT r.id, r.equipment_id, r.start_date, r.end_date FROM equipment_reservations r
			WHERE r.organization_id = ? AND (r.event_id IN (?)
				OR (r.event_id IS NULL AND r.notes = ? AND r.equipment_id IN
					(SELECT id FROM equipment WHERE organization_id = ? AND name = ?)))
			ORDER BY r.id FOR NO KEY UPDATE OF r`,
			t.Org.UUID, bun.List(eventIDs), breakoutNote, t.Org.UUID, shortItem).Scan(ctx, &lines); err != nil {
			return err
		}
		guard, err := lockStock(ctx, tx, t.Org, lines, shift)
		if err != nil {
			return err
		}
		by := shift.Microseconds()
		if _, err := tx.NewRaw(`UPDATE events
			SET start_date = start_date + ? * interval '1 microsecond', end_date = end_date + ? * interval '1 microsecond',
				updated_at = clock_timestamp()
			WHERE organization_id = ? AND id IN (?)`, by, by, t.Org.UUID, bun.List(eventIDs)).Exec(ctx); err != nil {
			return err
		}
		// The seed's invoices of those events (made with them, as the
		// events are chosen) keep their dates beside the show (issued on
		// the seed day, due two weeks after the show starts), in whole
		// days: their dates are dates.
		if _, err := tx.NewRaw(`UPDATE invoices SET issue_date = issue_date + ?, due_date = due_date + ?, updated_at = clock_timestamp()
			WHERE organization_id = ? AND event_id IN (?) AND created_at <= ?`,
			wholeDays(shift), wholeDays(shift), t.Org.UUID, bun.List(eventIDs), seeded).Exec(ctx); err != nil {
			return err
		}
		if len(lines) > 0 {
			if _, err := tx.NewRaw(`UPDATE equipment_reservations
				SET start_date = start_date + ? * interval '1 microsecond', end_date = end_date + ? * interval '1 microsecond',
					updated_at = clock_timestamp()
				WHERE organization_id = ? AND id IN (?)`,
				by, by, t.Org.UUID, bun.List(lineIDs(lines))).Exec(ctx); err != nil {
				return err
			}
		}
		if short, err := guard.newlyShort(ctx, tx); err != nil || short != "" {
			if err == nil {
				err = oversold{equipment: short}
			}
			return err
		}
		out.Moved = true
		return nil
	})
	var o oversold
	if errors.As(err, &o) {
		return Refreshed{Skipped: fmt.Sprintf("moving the demo's timeline to next week would oversell %s there: "+
			"the organization's own reservations hold it; nothing was moved", o.equipment)}, nil
	}
	return out, err
}

// wholeDays is d in days, rounded to the nearest.
func wholeDays(d time.Duration) int { return int(d.Round(24*time.Hour) / (24 * time.Hour)) }

// oversold ends Refresh's transaction when the move would oversell the
// equipment named.
type oversold struct{ equipment string }

func (o oversold) Error() string { return "the move would oversell " + o.equipment }

// movedLine is one reservation Refresh moves.
type movedLine struct {
	ID          uuid.UUID `bun:"id"`
	EquipmentID uuid.UUID `bun:"equipment_id"`
	Start       time.Time `bun:"start_date"`
	End         time.Time `bun:"end_date"`
}

func lineIDs(lines []movedLine) []uuid.UUID {
	ids := make([]uuid.UUID, len(lines))
	for i, l := range lines {
		ids[i] = l.ID
	}
	return ids
}

// sortedEquipment returns the distinct equipment of lines, in id order.
func sortedEquipment(lines []movedLine) []uuid.UUID {
	var ids []uuid.UUID
	for _, l := range lines {
		ids = append(ids, l.EquipmentID)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return slices.Compact(ids)
}

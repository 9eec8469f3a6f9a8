package events

import (
	"context"
	"slices"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	reservationsapi "github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/tenancy"
)

// Warning codes of an event PATCH (docs/availability.md, "Truck load").
const (
	// WarningReservationsOutsideEvent: the PATCH's dates leave reservations
	// of the event outside them.
	WarningReservationsOutsideEvent = "reservations_outside_event"
	// WarningReservationsStillHeld: the PATCH ended the event (cancelled,
	// completed) while reservations of it still hold their units.
	WarningReservationsStillHeld = "reservations_still_held"
)

// warnings are the checks of an event PATCH, in the order their warnings
// are answered: the dates, then the status.
func warnings(ctx context.Context, f events.Fields) crud.WarnCheck[events.Event] {
	checks := slices.DeleteFunc([]crud.WarnCheck[events.Event]{warnOutside(ctx, f), warnStillHeld(ctx, f)},
		func(c crud.WarnCheck[events.Event]) bool { return c == nil })
	if len(checks) == 0 {
		return nil
	}
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, e *events.Event) ([]rest.Warning, error) {
		var out []rest.Warning
		for _, check := range checks {
			w, err := check(ctx, db, org, e)
			if err != nil {
				return nil, err
			}
			out = append(out, w...)
		}
		return out, nil
	}
}

// warnStillHeld is the check, after a PATCH that sets the event's status to
// cancelled or completed, for reservations of the event still reserved or
// checked out: an event's status changes none of its reservations
// (docs/decisions.md), so a cancelled show keeps its gear and trucks booked
// and a completed one may have gear that never came back, where a rental
// house expects the gear free again. The write stands; the warning names
// them, to a key that may read reservations, as warnOutside's.
func warnStillHeld(ctx context.Context, f events.Fields) crud.WarnCheck[events.Event] {
	v, set := f.Changes.Value("status")
	status, _ := v.(string)
	if !set || (status != events.StatusCancelled && status != events.StatusCompleted) || !reservationsapi.MayRead(ctx) {
		return nil
	}
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, e *events.Event) ([]rest.Warning, error) {
		held, err := reservations.HeldByEvent(ctx, db, org, e.ID, e.Status)
		if err != nil || held == nil {
			return nil, err
		}
		return []rest.Warning{{Code: WarningReservationsStillHeld, Details: held}}, nil
	}
}

// warnOutside is the check, after a PATCH that sets the event's dates, for
// the event's reservations holding stock that overlapped its dates before
// the PATCH and no longer do: a reservation keeps its own dates
// (docs/decisions.md), so an event moved
// in the rental house's own tool leaves its gear booked, and its trucks
// loaded, on the old days, and the load asked by the event leaves them
// out. One outside the event before the PATCH too (a load-in booked the
// day before) is not named: the PATCH did not leave it behind. The write
// stands; the warning names them. It names reservations,
// so only a key that may read reservations gets it, as the stock warning
// of an equipment PATCH; a PATCH that leaves the dates alone runs no
// check.
func warnOutside(ctx context.Context, f events.Fields) crud.WarnCheck[events.Event] {
	// Before is set exactly when the PATCH sends a date (decode).
	if f.Before == nil || !reservationsapi.MayRead(ctx) {
		return nil
	}
	before := f.Before // filled by events.Update, in the write's transaction, before this check runs
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, e *events.Event) ([]rest.Warning, error) {
		out, err := reservations.OutsideEvent(ctx, db, org, e.ID,
			reservations.Moved{FromStart: before.Start, FromEnd: before.End, Start: e.StartDate, End: e.EndDate})
		if err != nil || out == nil {
			return nil, err
		}
		return []rest.Warning{{Code: WarningReservationsOutsideEvent, Details: out}}, nil
	}
}

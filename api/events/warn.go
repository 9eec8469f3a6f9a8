package events

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	reservationsapi "github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/tenancy"
)

// WarningReservationsOutsideEvent is the code of the warning of a PATCH
// whose dates leave reservations of the event outside them
// (docs/availability.md, "Truck load").
const WarningReservationsOutsideEvent = "reservations_outside_event"

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

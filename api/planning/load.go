package planning

import (
	"fmt"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	reservationsapi "github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/api/storage/truckload"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Load is what one vehicle carries over a window: the totals against its
// limits and the reservations behind them.
type Load struct {
	truckload.Totals
	// EventID is the event whose window was asked for (?event_id=), else null.
	EventID      *uuid.UUID                 `json:"event_id"`
	Reservations []reservations.Reservation `json:"reservations"`
}

// load serves GET /vehicles/{id}/load?start=&end= or ?event_id=: the
// reservations on the vehicle that hold stock during the window (an event's
// window for event_id), with expand=equipment,event,vehicle on each.
func (h handlers) load(c *fiber.Ctx) error {
	id, err := rest.PathID(c, vehicles.Kind)
	if err != nil {
		return err
	}
	q := rest.NewQuery(c)
	eventID := q.UUID("event_id")
	w := loadWindow(q, eventID)
	if eventID != nil {
		// The answer carries the event's dates (the window): the key must
		// be able to read the event, as for ?expand=event. The 403 is
		// answered only when no parameter is bad.
		q.Check(auth.Check(c.UserContext(), tenancy.EventReaders...))
	}
	want := q.Expansions(reservationsapi.Expansions...)
	if err := q.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	vs, err := related.Vehicles(ctx, db, org, []uuid.UUID{id})
	if err != nil {
		return err
	}
	v := vs[id]
	if v == nil {
		return errs.NotFoundOf(vehicles.Kind)
	}
	if eventID != nil {
		evs, err := related.Events(ctx, db, org, []uuid.UUID{*eventID})
		if err != nil {
			return err
		}
		ev := evs[*eventID]
		if ev == nil {
			return errs.InvalidField("event_id", related.IssueNotInOrg)
		}
		if ev.EndDate.Sub(ev.StartDate) > MaxWindow {
			return errs.InvalidField("event_id", fmt.Sprintf("the event spans more than %d days: ask with start and end about parts of it, "+
				"each at most %d days (a reservation across two parts is in both answers)", maxDays, maxDays))
		}
		w = stock.Window{Start: ev.StartDate, End: ev.EndDate}
	}
	// Reservations that all overlap one instant are refused for any
	// window: their own list pages them.
	page := ", or page the vehicle's reservations with GET /api/v2/equipment_reservations?vehicle_id=" + v.ID.String()
	field, ask := "end", "ask about a shorter window"+page
	if eventID != nil {
		field, ask = "event_id", "ask with start and end about parts of the event"+page
	}
	// Built under the large-read bulkhead, from at most MaxHolds reservations.
	return h.env.LargeReads.Run(ctx, func() error {
		totals, rs, err := reservations.VehicleLoad(ctx, db, org, v, w, MaxHolds)
		if err != nil {
			return tooManyHolds(err, field, ask)
		}
		if err := reservations.Expand(ctx, db, org, rs, want); err != nil {
			return err
		}
		return rest.OK(c, Load{Totals: totals, EventID: eventID, Reservations: rs})
	})
}

// loadWindow reads into q the window of a load: start and end, or else
// event_id (eventID, nil when absent or bad), never both. The window of an
// event is its dates, which load reads once no parameter is bad.
func loadWindow(q *rest.Query, eventID *uuid.UUID) stock.Window {
	_, byEvent := q.Raw("event_id")
	_, start := q.Raw("start")
	_, end := q.Raw("end")
	switch {
	case byEvent && (start || end):
		q.Issue("event_id", "give either start and end, or event_id, not both")
	case byEvent: // the event's dates, read once no parameter is bad
	case !start && !end:
		q.Issue("start", "give start and end, or event_id")
		q.Issue("end", "give start and end, or event_id")
	default:
		return window(q)
	}
	return stock.Window{}
}

package planning

import (
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

// eventReadScopes read an event, as for ?expand=event.
var eventReadScopes = []tenancy.Scope{tenancy.EventsRead, tenancy.JobsRead}

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
	eventID, err := rest.QueryUUID(c, "event_id")
	if err != nil {
		return err
	}
	var w stock.Window
	if eventID == nil {
		if !rest.QueryGiven(c, "start") && !rest.QueryGiven(c, "end") {
			return errs.Invalid(
				errs.FieldIssue{Field: "start", Issue: "is required with end, unless event_id is given"},
				errs.FieldIssue{Field: "end", Issue: "is required with start, unless event_id is given"})
		}
		if w, err = window(c); err != nil {
			return err
		}
	} else {
		if rest.QueryGiven(c, "start") || rest.QueryGiven(c, "end") {
			return errs.InvalidField("event_id", "give either start and end, or event_id, not both")
		}
		// The answer carries the event's dates (the window): the key must
		// be able to read the event, as for ?expand=event.
		if err := auth.Check(c.UserContext(), eventReadScopes...); err != nil {
			return err
		}
	}
	want, err := rest.ParseExpansions(c, reservationsapi.Expansions...)
	if err != nil {
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
		return errs.NotFoundf(vehicles.Kind)
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
			return errs.InvalidField("event_id", "the event spans more than 366 days; ask with start and end instead")
		}
		w = stock.Window{Start: ev.StartDate, End: ev.EndDate}
	}
	totals, rs, err := reservations.VehicleLoad(ctx, db, org, v, w)
	if err != nil {
		return err
	}
	if err := reservations.Expand(ctx, db, org, rs, want); err != nil {
		return err
	}
	return rest.OK(c, Load{Totals: totals, EventID: eventID, Reservations: rs})
}

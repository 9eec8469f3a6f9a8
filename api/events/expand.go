package events

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Expansions are the relations ?expand accepts on GET /events/{id} and
// GET /jobs/{id}: equipment_reservations inlines the event's reservations
// (its truck assignments); equipment and vehicle then inline those records
// in each reservation, and have no effect without it. Each needs a scope
// that reads its object type, as that type's GET route does.
var expansions = []rest.Expansion{
	rest.Expand("equipment_reservations", tenancy.ReservationReaders...),
	rest.Expand("equipment", tenancy.EquipmentReaders...).In("equipment_reservations"),
	rest.Expand("vehicle", tenancy.VehicleReaders...).In("equipment_reservations"),
}

// Expansions are the names of expansions, as the OpenAPI document lists them.
var Expansions = rest.ExpansionNames(expansions)

// WithReservations is an event with its reservations inlined.
type WithReservations struct {
	*events.Event
	EquipmentReservations []reservations.Reservation `json:"equipment_reservations"`
}

// MaxInlined bounds the reservations expand=equipment_reservations
// inlines, as a pick list's items are bounded: an event can name any number
// of them (cancelled ones do not count against the one-per-equipment rule),
// and an event of 12,000 is a 36 MB answer. An event with more, or
// whose reservations hold more than reservations.MaxText bytes of text, is
// 422 on expand, saying to page them instead (docs/decisions.md, "How
// large one answer may be"). The answer is built under the large-read
// bulkhead (resource's LargeWith).
const MaxInlined = 1_000

// show renders e with the requested expansions.
func show(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, want map[string]bool, e *events.Event) (any, error) {
	if !want["equipment_reservations"] {
		return e, nil
	}
	page := "page them with GET /api/v2/equipment_reservations?event_id=" + e.ID.String()
	rs, err := reservations.OfEvent(ctx, db, org, e.ID, MaxInlined+1)
	if errors.Is(err, reservations.ErrTooMuchText) {
		return nil, errs.InvalidField("expand", reservations.TooMuchTextIssue("the event's", page))
	}
	if err != nil {
		return nil, err
	}
	if len(rs) > MaxInlined {
		return nil, errs.InvalidField("expand", fmt.Sprintf(
			"the event has more than %d reservations, more than one answer inlines: %s", MaxInlined, page))
	}
	if err := reservations.Expand(ctx, db, org, rs, map[string]bool{"equipment": want["equipment"], "vehicle": want["vehicle"]}); err != nil {
		return nil, err
	}
	return WithReservations{Event: e, EquipmentReservations: rs}, nil
}

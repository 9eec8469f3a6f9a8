package reservations

import (
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/reservations"
)

// ReadOnly lists the fields a reservation may never be written with: its
// overbooked flag and its expansions among them.
var ReadOnly = rest.ReadOnlyFields(Expansions, "overbooked")

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// notes and overbook_reason are free text, the other strings one line.
var createRules, updateRules = openapi.Rules("ReservationCreate").MultiLine("notes", "overbook_reason"),
	openapi.Rules("ReservationUpdate").MultiLine("notes", "overbook_reason")

// body is a decoded create or patch body: every field that was present.
type body struct {
	equipmentID, eventID, vehicleID rest.Field[uuid.UUID]
	truckPosition, status, notes    rest.Field[string]
	start, end                      rest.Field[time.Time]
	quantity                        rest.Field[int]
	override                        reservations.Override
}

// decode reads every writable field. The same decoder serves POST (create:
// required fields enforced) and PATCH.
func decode(in *rest.Input, create bool) body {
	var b body
	rules := updateRules
	if create {
		rules = createRules
	}
	b.equipmentID = in.UUID("equipment_id", rules.Get("equipment_id"))
	b.eventID = in.UUID("event_id", rules.Get("event_id"))
	b.vehicleID = in.UUID("vehicle_id", rules.Get("vehicle_id"))
	b.truckPosition = in.String("truck_position", rules.Get("truck_position"))
	b.start = in.DateTime("start_date", rules.Get("start_date"))
	b.end = in.DateTime("end_date", rules.Get("end_date"))
	b.quantity = in.Int("quantity", rules.Get("quantity"))
	b.status = in.String("reservation_status", rules.Get("reservation_status"))
	b.notes = in.String("notes", rules.Get("notes"))
	force := in.Bool("force_overbook", rules.Get("force_overbook"))
	reason := in.String("overbook_reason", rules.Get("overbook_reason"))
	owner := in.String("overbook_cost_ownership", rules.Get("overbook_cost_ownership"))
	b.override = reservations.Override{Force: force.Value, Reason: reason.Ptr(),
		CostOwnership: owner.Ptr(), CostOwnershipSent: owner.Set}
	in.ReadOnly(ReadOnly...)
	if b.start.Set && b.end.Set && !storage.WindowOK(b.start.Value, b.end.Value) {
		in.Issue("end_date", storage.WindowIssue)
	}
	return b
}

// newReservation builds the reservation a create body describes.
func (b body) newReservation() *reservations.Reservation {
	r := &reservations.Reservation{Quantity: 1, ReservationStatus: reservations.StatusReserved}
	b.apply(r)
	return r
}

// apply writes every field present in the body onto r.
func (b body) apply(r *reservations.Reservation) {
	if b.equipmentID.Set {
		r.EquipmentID = b.equipmentID.Value
	}
	if b.eventID.Set {
		r.EventID = b.eventID.Ptr()
	}
	if b.vehicleID.Set {
		r.VehicleID = b.vehicleID.Ptr()
	}
	if b.truckPosition.Set {
		r.TruckPosition = b.truckPosition.Ptr()
	}
	// PostgreSQL keeps microseconds; compare and store what it keeps.
	if b.start.Set {
		r.StartDate = b.start.Value.Truncate(time.Microsecond)
	}
	if b.end.Set {
		r.EndDate = b.end.Value.Truncate(time.Microsecond)
	}
	if b.quantity.Set {
		r.Quantity = b.quantity.Value
	}
	if b.status.Set {
		r.ReservationStatus = b.status.Value
	}
	if b.notes.Set {
		r.Notes = b.notes.Ptr()
	}
}

// unwritten returns the override fields the body sent that the stored
// reservation r does not show: an override that had nothing to justify
// (the write fit stock, or the reservation is not overbooked) is not
// stored, and the answer (POST or PATCH) names such fields in ignored_fields rather than
// answering as if they were written. force_overbook: false asks for
// nothing and is never named.
func (b body) unwritten(in *rest.Input, r *reservations.Reservation) []string {
	var out []string
	if in.Has("force_overbook") && b.override.Force && !r.Overbooked {
		out = append(out, "force_overbook")
	}
	if in.Has("overbook_reason") && !storage.Same(b.override.Reason, r.OverbookReason) {
		out = append(out, "overbook_reason")
	}
	if in.Has("overbook_cost_ownership") && !storage.Same(b.override.CostOwnership, r.OverbookCostOwnership) {
		out = append(out, "overbook_cost_ownership")
	}
	return out
}

package reservations

import (
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage/reservations"
)

// ReadOnly lists the fields a reservation may never be written with.
var ReadOnly = []string{"id", "organization_id", "overbooked", "demo", "created_at", "updated_at"}

var (
	notesRule  = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}
	reasonRule = rest.Rule{Nullable: true, MaxLen: 1000}
	idRule     = rest.Rule{Nullable: true}
)

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
	b.equipmentID = in.UUID("equipment_id", rest.Rule{Required: create})
	b.eventID = in.UUID("event_id", idRule)
	b.vehicleID = in.UUID("vehicle_id", idRule)
	b.truckPosition = in.String("truck_position", rest.Rule{Nullable: true, MaxLen: reservations.MaxTruckPosition})
	b.start = in.DateTime("start_date", rest.Rule{Required: create})
	b.end = in.DateTime("end_date", rest.Rule{Required: create})
	b.quantity = in.Int("quantity", rest.Rule{Min: rest.Bound(1), Max: rest.Bound(1_000_000)})
	b.status = in.String("reservation_status", rest.Rule{OneOf: reservations.Statuses})
	b.notes = in.String("notes", notesRule)
	force := in.Bool("force_overbook", rest.Rule{Nullable: true})
	reason := in.String("overbook_reason", reasonRule)
	owner := in.String("overbook_cost_ownership", rest.Rule{Nullable: true, OneOf: reservations.CostOwnerships})
	b.override = reservations.Override{Force: force.Value, Reason: reason.Ptr(), CostOwnership: owner.Ptr()}
	in.ReadOnly(ReadOnly...)
	if b.start.Set && b.end.Set && !b.end.Value.After(b.start.Value) {
		in.Issue("end_date", "must be after start_date")
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

package reservations

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// ReadOnly lists the fields a reservation may never be written with.
var ReadOnly = []string{"id", "organization_id", "overbooked", "demo", "created_at", "updated_at"}

var (
	notesRule  = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}
	reasonRule = rest.Rule{Nullable: true, MaxLen: 1000}
	idRule     = rest.Rule{Nullable: true}
)

// Override is the caller's permission to exceed available stock
// (force_overbook, overbook_reason, overbook_cost_ownership).
type Override struct {
	Force         bool
	Reason        *string
	CostOwnership *string
}

// body is a decoded create or patch body: every field that was present.
type body struct {
	equipmentID, eventID, vehicleID rest.Field[uuid.UUID]
	truckPosition, status, notes    rest.Field[string]
	start, end                      rest.Field[time.Time]
	quantity                        rest.Field[int]
	override                        Override
}

// decode reads every writable field. The same decoder serves POST (create:
// required fields enforced) and PATCH.
func decode(in *rest.Input, create bool) body {
	var b body
	b.equipmentID = in.UUID("equipment_id", rest.Rule{Required: create})
	b.eventID = in.UUID("event_id", idRule)
	b.vehicleID = in.UUID("vehicle_id", idRule)
	b.truckPosition = in.String("truck_position", rest.Rule{Nullable: true, MaxLen: MaxTruckPosition})
	b.start = in.DateTime("start_date", rest.Rule{Required: create})
	b.end = in.DateTime("end_date", rest.Rule{Required: create})
	b.quantity = in.Int("quantity", rest.Rule{Min: rest.Bound(1), Max: rest.Bound(1_000_000)})
	b.status = in.String("reservation_status", rest.Rule{OneOf: Statuses})
	b.notes = in.String("notes", notesRule)
	force := in.Bool("force_overbook", rest.Rule{Nullable: true})
	reason := in.String("overbook_reason", reasonRule)
	owner := in.String("overbook_cost_ownership", rest.Rule{Nullable: true, OneOf: CostOwnerships})
	b.override = Override{Force: force.Value, Reason: reason.Ptr(), CostOwnership: owner.Ptr()}
	in.ReadOnly(ReadOnly...)
	if b.start.Set && b.end.Set && !b.end.Value.After(b.start.Value) {
		in.Issue("end_date", "must be after start_date")
	}
	return b
}

// check returns overbook_reason_required when force_overbook is true without
// a reason of at least MinOverbookReason characters. It runs after the field
// validation and before any stock is looked at.
func (o Override) check() error {
	if !o.Force || (o.Reason != nil && len([]rune(*o.Reason)) >= MinOverbookReason) {
		return nil
	}
	return errs.New(errs.OverbookReasonRequired,
		fmt.Sprintf("force_overbook requires an overbook_reason of at least %d characters", MinOverbookReason)).
		WithDetails(errs.ValidationDetails{Fields: []errs.FieldIssue{{Field: "overbook_reason",
			Issue: fmt.Sprintf("is required, at least %d characters, when force_overbook is true", MinOverbookReason)}}})
}

// newReservation builds the reservation a create body describes.
func (b body) newReservation() *Reservation {
	r := &Reservation{Quantity: 1, ReservationStatus: StatusReserved}
	b.apply(r)
	return r
}

// apply writes every field present in the body onto r.
func (b body) apply(r *Reservation) {
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

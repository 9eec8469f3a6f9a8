package reservations

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Reservation books a quantity of one equipment record for a window,
// optionally for an event and on a truck (vehicle_id, truck_position).
type Reservation struct {
	bun.BaseModel `bun:"table:equipment_reservations,alias:r"`

	ID                    uuid.UUID  `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID        uuid.UUID  `bun:"organization_id,type:uuid" json:"-"`
	EquipmentID           uuid.UUID  `bun:"equipment_id,type:uuid" json:"equipment_id"`
	EventID               *uuid.UUID `bun:"event_id,type:uuid" json:"event_id"`
	VehicleID             *uuid.UUID `bun:"vehicle_id,type:uuid" json:"vehicle_id"`
	TruckPosition         *string    `bun:"truck_position" json:"truck_position"`
	StartDate             time.Time  `bun:"start_date" json:"start_date"`
	EndDate               time.Time  `bun:"end_date" json:"end_date"`
	Quantity              int        `bun:"quantity" json:"quantity"`
	ReservationStatus     string     `bun:"reservation_status" json:"reservation_status"`
	Notes                 *string    `bun:"notes" json:"notes"`
	Overbooked            bool       `bun:"overbooked" json:"overbooked"`
	OverbookReason        *string    `bun:"overbook_reason" json:"overbook_reason"`
	OverbookCostOwnership *string    `bun:"overbook_cost_ownership" json:"overbook_cost_ownership"`
	Demo                  bool       `bun:"demo" json:"demo"`
	CreatedAt             time.Time  `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt             time.Time  `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`

	// Expansions (?expand=equipment,event,vehicle).
	Equipment related.One[related.Equipment] `bun:"-" json:"equipment,omitzero"`
	Event     related.One[related.Event]     `bun:"-" json:"event,omitzero"`
	Vehicle   related.One[related.Vehicle]   `bun:"-" json:"vehicle,omitzero"`
}

// PageKey implements storage.Row.
func (r *Reservation) PageKey() storage.Cursor {
	return storage.Cursor{CreatedAt: r.CreatedAt, ID: r.ID}
}

// Kind names the resource in errors.
const Kind = "equipment reservation"

// Reservation statuses (docs/decisions.md); any move between them is
// allowed. Reserved and checked_out count against stock (stock.HoldingStatuses).
const (
	StatusReserved   = stock.StatusReserved
	StatusCheckedOut = stock.StatusCheckedOut
	StatusReturned   = "returned"
	StatusCancelled  = "cancelled"
)

// Statuses lists every reservation status, the default first.
var Statuses = []string{StatusReserved, StatusCheckedOut, StatusReturned, StatusCancelled}

// CostOwnerships are the values of overbook_cost_ownership.
var CostOwnerships = []string{"new_customer", "original_customer", "absorbed"}

// Expansions are the relations ?expand accepts.
var Expansions = []string{"equipment", "event", "vehicle"}

// MinOverbookReason is the shortest accepted overbook_reason.
const MinOverbookReason = 4

// MayWarnOfOverdue reports whether a write of r under the stock guard mode
// can answer overdue_returns: only a reserved booking under a guard that
// looks (a checkout records gear that has left, so the units were there;
// off mode looks at no stock). The guard asks it before reading what is
// overdue, and the handler before checking the scope the warning needs.
func (r *Reservation) MayWarnOfOverdue(mode tenancy.StockGuardMode) bool {
	return r.ReservationStatus == StatusReserved && mode != tenancy.StockGuardOff
}

// counts reports whether the reservation holds stock (storage/stock states which
// statuses do).
func (r *Reservation) counts() bool {
	return slices.Contains(stock.HoldingStatuses, r.ReservationStatus)
}

// Override is the caller's permission to exceed available stock
// (force_overbook, overbook_reason, overbook_cost_ownership). Only a forced
// one is stored.
type Override struct {
	Force         bool
	Reason        *string
	CostOwnership *string
	// CostOwnershipSent is true when the body named overbook_cost_ownership,
	// null included: a re-stated override then stores it (null clears it).
	CostOwnershipSent bool
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

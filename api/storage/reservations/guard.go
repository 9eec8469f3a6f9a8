package reservations

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// The stock guard (docs/decisions.md, "Reservations and the stock guard";
// docs/availability.md, "The stock rule, stated once"). Checking stock and writing
// the reservation is one transaction that first locks the equipment row, so
// every writer of reservations of one equipment record, on every instance,
// queues on that lock: the sum it reads afterwards includes every reservation
// committed before it, and none can be committed between its check and its
// write.

// OverbookDetails describes a reservation that exceeds available stock: the
// details of overbook_blocked and of the overbooked warning.
type OverbookDetails struct {
	Requested                 int         `json:"requested"`
	Available                 int         `json:"available"`
	Deficit                   int         `json:"deficit"`
	ConflictingEventIDs       []uuid.UUID `json:"conflicting_event_ids"`
	ConflictingReservationIDs []uuid.UUID `json:"conflicting_reservation_ids"`
	WindowStart               time.Time   `json:"window_start"`
	WindowEnd                 time.Time   `json:"window_end"`
	// RetryWith is the hint of overbook_blocked (absent on warnings).
	RetryWith *RetryWith `json:"retry_with,omitempty"`
}

// RetryWith tells the caller how to force the reservation.
type RetryWith struct {
	ForceOverbook  bool   `json:"force_overbook"`
	OverbookReason string `json:"overbook_reason"`
}

// Warning is an entry of the top-level warnings array beside data: the
// overbooked warning of warn mode (details *OverbookDetails) and the truck
// load warnings over_payload and over_volume (details *truckload.Totals).
type Warning struct {
	Code    string `json:"code"`
	Details any    `json:"details"`
}

// WarningOverbooked is the code of the warn-mode warning.
const WarningOverbooked = "overbooked"

// shortage returns the details when r would exceed stock in its window, or
// nil when it fits (or stock is unlimited); when it fits and may warn of
// overdue units under mode (MayWarnOfOverdue), the overdue_returns warning
// when units still out past their end would leave it short (overdueShort).
// The equipment row must be locked.
// The reservation itself (r.ID, when set) is left out. "Fits" is
// stock.Profile.Admits, the rule the availability endpoints share: the
// summed quantity of every counted hold overlapping the window, plus r's,
// stays within stock (docs/availability.md, "The stock rule, stated once";
// not the busiest instant, which that section explains).
func shortage(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, mode tenancy.StockGuardMode, stockQuantity *int, r *Reservation) (*OverbookDetails, *Warning, error) {
	if stockQuantity == nil {
		return nil, nil, nil
	}
	w := stock.Window{Start: r.StartDate, End: r.EndDate}
	holds, err := stock.Holds(ctx, tx, org, r.EquipmentID, w, r.ID)
	if err != nil {
		return nil, nil, err
	}
	p := stock.Compute(stockQuantity, w, holds)
	if p.Admits(r.Quantity) {
		if !r.MayWarnOfOverdue(mode) {
			return nil, nil, nil
		}
		overdue, err := overdueShort(ctx, tx, org, *p.MinAvailable, r)
		return nil, overdue, err
	}
	return &OverbookDetails{Requested: r.Quantity, Available: *p.MinAvailable, Deficit: r.Quantity - *p.MinAvailable,
		ConflictingEventIDs: p.EventIDs, ConflictingReservationIDs: p.ReservationIDs,
		WindowStart: r.StartDate, WindowEnd: r.EndDate}, nil, nil
}

// restate stores a forced override's reason (and cost ownership, when
// sent: null names no one and clears it) on r when r stays overbooked
// through a write that runs no new stock check: a PATCH that only
// re-states why the reservation is over stock, or changes something else
// beside it. An override on a reservation that is not overbooked has
// nothing to justify and stores nothing (the handler names its fields in
// ignored_fields).
func restate(r *Reservation, ov Override) {
	if !r.Overbooked || !ov.Force {
		return
	}
	r.OverbookReason = ov.Reason
	if ov.CostOwnershipSent {
		r.OverbookCostOwnership = ov.CostOwnership
	}
}

// decide applies the organization's mode to a shortage of r: block refuses
// it unless forced, warn lets it through with a warning, off never looks.
// It sets r's overbook fields and returns the warning to report, if any.
// Only a forced override is stored: warn mode without force_overbook stores
// neither reason nor cost ownership (the handler names them in
// ignored_fields).
func decide(mode tenancy.StockGuardMode, short *OverbookDetails, r *Reservation, ov Override) (*Warning, error) {
	if short == nil {
		r.Overbooked, r.OverbookReason, r.OverbookCostOwnership = false, nil, nil
		return nil, nil
	}
	switch {
	case ov.Force:
		r.Overbooked, r.OverbookReason, r.OverbookCostOwnership = true, ov.Reason, ov.CostOwnership
		return nil, nil
	case mode == tenancy.StockGuardWarn:
		r.Overbooked, r.OverbookReason, r.OverbookCostOwnership = true, nil, nil
		return &Warning{Code: WarningOverbooked, Details: short}, nil
	}
	blocked := *short
	blocked.RetryWith = &RetryWith{ForceOverbook: true, OverbookReason: "<why>"}
	return nil, errs.New(errs.OverbookBlocked,
		blockedMessage(short)).
		WithDetails(&blocked)
}

// blockedMessage says what details says: requested, available and the
// deficit. available is negative when more is held than stock already; the
// message then says none is available and by how much stock is overdrawn.
func blockedMessage(short *OverbookDetails) string {
	if short.Available < 0 {
		return fmt.Sprintf("the reservation needs %d, and none are available in the window (%d more %s held than stock): %d short",
			short.Requested, -short.Available, plural(-short.Available, "is", "are"), short.Deficit)
	}
	return fmt.Sprintf("the reservation needs %d, and %d %s available in the window: %d short",
		short.Requested, short.Available, plural(short.Available, "is", "are"), short.Deficit)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

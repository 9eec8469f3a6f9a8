package reservations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/tenancy"
)

// WarningOverdueReturns is the code of the warning of a booking that fits
// stock only if overdue units come back first.
const WarningOverdueReturns = "overdue_returns"

// OverdueDetails are the details of overdue_returns: the booking fits stock
// by the guard's rule (Available, which counts units whose reservation has
// ended as free), but the reservations named are checked out past their end
// and hold OverdueQuantity units that have not come back; should none of
// them return before WindowStart, the booking lacks Deficit units (at most
// Requested; overdueShort).
type OverdueDetails struct {
	Named
	Requested       int       `json:"requested"`
	Available       int       `json:"available"`
	OverdueQuantity int       `json:"overdue_quantity"`
	Deficit         int       `json:"deficit"`
	WindowStart     time.Time `json:"window_start"`
	WindowEnd       time.Time `json:"window_end"`
}

// overdueShort returns the overdue_returns warning of r, which fits stock
// with available units free by the guard's rule, when the units of r's
// equipment that are overdue before r starts (stock.OverdueOf) would leave
// it short; nil otherwise. The equipment row must be locked. A booking
// lacks at most what it asks for, however many units the records say are
// out (two checked-out bookings of all of it, one after the other, neither
// returned, say twice the stock).
func overdueShort(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, available int, r *Reservation) (*Warning, error) {
	w := stock.Window{Start: r.StartDate, End: r.EndDate}
	all, err := stock.OverdueOf(ctx, tx, org, []uuid.UUID{r.EquipmentID}, w, r.ID)
	if err != nil {
		return nil, err
	}
	o, ok := all[r.EquipmentID]
	left := available - o.Quantity
	if !ok || r.Quantity <= left {
		return nil, nil
	}
	return &Warning{Code: WarningOverdueReturns, Details: &OverdueDetails{
		Named:     Named{Count: o.Count, ReservationIDs: o.ReservationIDs},
		Requested: r.Quantity, Available: available, OverdueQuantity: o.Quantity,
		Deficit: min(r.Quantity-left, r.Quantity), WindowStart: r.StartDate, WindowEnd: r.EndDate}}, nil
}

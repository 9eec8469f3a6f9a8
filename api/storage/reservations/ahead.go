package reservations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/api/storage/truckload"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Ahead is what a vehicle still carries from an instant on: its
// reservations whose status holds stock (stock.HoldingStatuses) and that
// end after it.
type Ahead struct {
	Named
	// VehicleStatus is the status the write gave the vehicle.
	VehicleStatus string `json:"vehicle_status"`
}

// aheadCond is the condition that the reservation aliased r is on a
// vehicle, holds stock and ends after an instant: its arguments are the
// vehicle, bun.List(stock.HoldingStatuses) and the instant.
const aheadCond = "r.vehicle_id = ? AND r.reservation_status IN (?) AND r.end_date > ?"

// OnVehicleAhead returns org's reservations on vehicle that hold stock and
// end after from, oldest first, the first MaxNamed named; nil when
// there is none. status is the vehicle's new status, for the answer.
func OnVehicleAhead(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, vehicle uuid.UUID, from time.Time, status string) (*Ahead, error) {
	n, err := named(ctx, db, org, aheadCond, vehicle, bun.List(stock.HoldingStatuses), from)
	if err != nil || n == nil {
		return nil, err
	}
	return &Ahead{Named: *n, VehicleStatus: status}, nil
}

// LoadAhead totals the load of the vehicle v of org from `from` to the end
// of the last reservation it carries after it, as a write's warnings do
// (loadTotals: memory bounded whatever their number); ok is false when it
// carries none after from.
func LoadAhead(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *related.Vehicle, from time.Time) (t truckload.Totals, ok bool, err error) {
	var last []time.Time
	err = db.NewSelect().TableExpr("equipment_reservations AS r").ColumnExpr("max(r.end_date)").
		Where("r.organization_id = ?", org).Where(aheadCond, v.ID, bun.List(stock.HoldingStatuses), from).
		Having("count(*) > 0").Scan(ctx, &last)
	if err != nil || len(last) == 0 {
		return truckload.Totals{}, false, database.Error(err)
	}
	t, err = loadTotals(ctx, db, org, v, stock.Window{Start: from, End: last[0]})
	return t, err == nil, err
}

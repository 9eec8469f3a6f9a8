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
	Count          int         `json:"count"`
	ReservationIDs []uuid.UUID `json:"reservation_ids"`
	// VehicleStatus is the status the write gave the vehicle.
	VehicleStatus string `json:"vehicle_status"`
}

// aheadOf is the condition, with its arguments, that the reservation
// aliased r is on vehicle, holds stock and ends after from.
func aheadOf(vehicle uuid.UUID, from time.Time) (string, []any) {
	return "r.vehicle_id = ? AND r.reservation_status IN (?) AND r.end_date > ?",
		[]any{vehicle, bun.List(stock.HoldingStatuses), from}
}

// OnVehicleAhead returns org's reservations on vehicle that hold stock and
// end after from, oldest first, the first MaxOutsideNamed named; nil when
// there is none. status is the vehicle's new status, for the answer.
func OnVehicleAhead(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, vehicle uuid.UUID, from time.Time, status string) (*Ahead, error) {
	var rows []struct {
		ID    uuid.UUID `bun:"id"`
		Count int       `bun:"count"`
	}
	cond, args := aheadOf(vehicle, from)
	err := db.NewSelect().TableExpr("equipment_reservations AS r").
		ColumnExpr("r.id, count(*) OVER () AS count").
		Where("r.organization_id = ?", org).Where(cond, args...).
		OrderExpr("r.created_at, r.id").Limit(MaxOutsideNamed).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return nil, database.Error(err)
	}
	out := &Ahead{Count: rows[0].Count, ReservationIDs: make([]uuid.UUID, len(rows)), VehicleStatus: status}
	for i, r := range rows {
		out.ReservationIDs[i] = r.ID
	}
	return out, nil
}

// LoadAhead totals the load of the vehicle v of org from `from` to the end
// of the last reservation it carries after it, as a write's warnings do
// (loadTotals: memory bounded whatever their number); ok is false when it
// carries none after from.
func LoadAhead(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *related.Vehicle, from time.Time) (t truckload.Totals, ok bool, err error) {
	var last []time.Time
	cond, args := aheadOf(v.ID, from)
	err = db.NewSelect().TableExpr("equipment_reservations AS r").ColumnExpr("max(r.end_date)").
		Where("r.organization_id = ?", org).Where(cond, args...).
		Having("count(*) > 0").Scan(ctx, &last)
	if err != nil || len(last) == 0 {
		return truckload.Totals{}, false, database.Error(err)
	}
	t, err = loadTotals(ctx, db, org, v, stock.Window{Start: from, End: last[0]})
	return t, err == nil, err
}

package reservations

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/api/storage/truckload"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Warning codes of a write that leaves its truck over a limit.
const (
	WarningOverPayload = "over_payload"
	WarningOverVolume  = "over_volume"
)

// Load reports whether w is a truck load warning (over_payload,
// over_volume): its details are the truck's totals over the window, the
// load of every reservation on it, not only the one written.
func (w Warning) Load() bool { return w.Code == WarningOverPayload || w.Code == WarningOverVolume }

// OnVehicle returns, in creation order, org's reservations on the vehicle
// that hold stock during w (the statuses and overlap of storage/stock): what is
// on the truck over that window. With max above 0 it is building an answer:
// it returns ErrTooMuchText when they hold more than MaxText, and it reads
// at most max+1 and returns stock.ErrTooManyHolds when there are more than
// max.
func OnVehicle(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, vehicle uuid.UUID, w stock.Window, max int) ([]Reservation, error) {
	cond, args := stock.Holding("r", w)
	onVehicle := func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("r.vehicle_id = ?", vehicle).Where(cond, args...)
	}
	if max > 0 {
		if err := CheckText(ctx, db, org, max+1, onVehicle); err != nil {
			return nil, err
		}
	}
	rs := []Reservation{}
	q := onVehicle(db.NewSelect().Model(&rs).Where("r.organization_id = ?", org)).OrderExpr("r.created_at, r.id")
	if max > 0 {
		q = q.Limit(int64(max + 1))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, database.Error(err)
	}
	if max > 0 && len(rs) > max {
		return nil, stock.ErrTooManyHolds
	}
	return rs, nil
}

// VehicleLoad totals the load of the vehicle v of org over w and returns the
// reservations behind it, at most max of them (0: all; OnVehicle).
func VehicleLoad(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *related.Vehicle, w stock.Window, max int) (truckload.Totals, []Reservation, error) {
	rs, err := OnVehicle(ctx, db, org, v.ID, w, max)
	if err != nil {
		return truckload.Totals{}, nil, err
	}
	eq, err := related.EquipmentByID(ctx, db, org, related.IDs(rs, func(r *Reservation) *uuid.UUID { return &r.EquipmentID }), false)
	if err != nil {
		return truckload.Totals{}, nil, err
	}
	lines := make([]truckload.Line, len(rs))
	for i, r := range rs {
		lines[i].Quantity = r.Quantity
		if e := eq[r.EquipmentID]; e != nil {
			lines[i].WeightLbs, lines[i].LengthIn, lines[i].WidthIn, lines[i].HeightIn = e.WeightLbs, e.CaseLengthIn, e.CaseWidthIn, e.CaseHeightIn
		}
	}
	return truckload.Sum(v.ID, w.Start, w.End, vehicleLimits(v), lines), rs, nil
}

// loads reports whether a write of next (cur is the stored reservation before
// a PATCH, nil on create) changes what a truck carries: it leaves next on a
// vehicle holding stock, and it is new there or changes what it puts on it
// (equipment, window, quantity or whether it holds stock). Such a write
// locks the truck (vehicles.Load) and is checked against its limits
// (loadWarnings).
func loads(cur, next *Reservation) bool {
	return next.VehicleID != nil && next.counts() &&
		(cur == nil || !storage.Same(cur.VehicleID, next.VehicleID) || changesClaim(cur, next))
}

// loadWarnings returns the over_payload and over_volume warnings of a write
// that leaves r (as stored, inside the write's transaction) on a truck that
// is then over its payload or volume during r's window, when the write loads
// the truck (loads; cur is the stored reservation before a PATCH).
func loadWarnings(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, cur, r *Reservation) ([]Warning, error) {
	if !loads(cur, r) {
		return nil, nil
	}
	vs, err := related.Vehicles(ctx, tx, org, []uuid.UUID{*r.VehicleID})
	if err != nil || vs[*r.VehicleID] == nil {
		return nil, err
	}
	t, err := loadTotals(ctx, tx, org, vs[*r.VehicleID], stock.Window{Start: r.StartDate, End: r.EndDate})
	if err != nil {
		return nil, err
	}
	var out []Warning
	if t.OverPayload {
		out = append(out, Warning{Code: WarningOverPayload, Details: &t})
	}
	if t.OverVolume {
		out = append(out, Warning{Code: WarningOverVolume, Details: &t})
	}
	return out, nil
}

// loadTotals totals the load of the vehicle v of org over w as VehicleLoad
// does, for a write's warnings: the database groups the reservations on
// the truck by equipment, so the write reads one short row per equipment
// carried, never the reservations themselves. A booking's window is not
// capped, and a truck can carry a great many reservations with long notes
// over one: loading them all took a pod's memory from 40 MB to over 500 MB
// for one write (docs/availability.md, "Bounds").
func loadTotals(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *related.Vehicle, w stock.Window) (truckload.Totals, error) {
	cond, args := stock.Holding("r", w)
	var lines []truckload.Line
	err := db.NewSelect().TableExpr("equipment_reservations AS r").
		Join("LEFT JOIN equipment AS e ON e.organization_id = r.organization_id AND e.id = r.equipment_id").
		ColumnExpr("sum(r.quantity) AS quantity, count(*) AS reservations").
		ColumnExpr("e.weight_lbs, e.case_length_in AS length_in, e.case_width_in AS width_in, e.case_height_in AS height_in").
		Where("r.organization_id = ?", org).Where("r.vehicle_id = ?", v.ID).Where(cond, args...).
		GroupExpr("r.equipment_id, e.weight_lbs, e.case_length_in, e.case_width_in, e.case_height_in").
		Scan(ctx, &lines)
	if err != nil {
		return truckload.Totals{}, database.Error(err)
	}
	return truckload.Sum(v.ID, w.Start, w.End, vehicleLimits(v), lines), nil
}

// vehicleLimits are v's capacity figures.
func vehicleLimits(v *related.Vehicle) truckload.Limits {
	return truckload.Limits{MaxPayloadLbs: v.MaxPayloadLbs,
		LengthIn: v.InteriorLengthInches, WidthIn: v.InteriorWidthInches, HeightIn: v.InteriorHeightInches}
}

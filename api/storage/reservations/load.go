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

// TellsOfOthers reports whether w tells of reservations beyond the one
// written, so that it goes only to a key that may read reservations: a
// truck load warning (over_payload, over_volume; its details are the
// truck's totals over the window, the load of every reservation on it) or
// overdue_returns (it names the reservations whose units are out).
func (w Warning) TellsOfOthers() bool {
	return w.Code == WarningOverPayload || w.Code == WarningOverVolume || w.Code == WarningOverdueReturns
}

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
		lines[i] = truckload.Line{Quantity: r.Quantity, Start: r.StartDate, End: r.EndDate}
		if e := eq[r.EquipmentID]; e != nil {
			lines[i].Figures = truckload.Figures{WeightLbs: e.WeightLbs, LengthIn: e.CaseLengthIn, WidthIn: e.CaseWidthIn, HeightIn: e.CaseHeightIn}
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
// does, for a write's warnings, with memory bounded whatever the number of
// reservations on the truck: a booking's window is not capped, and a truck
// can carry a great many reservations with long notes over one (loading
// them all took a pod's memory from 40 MB to over 500 MB for one write;
// docs/availability.md, "Bounds"). The database turns each reservation into
// its two steps (truckload.Steps: on at the later of its start and the
// window's, off at the earlier of its ends), adds up the quantities of the
// steps of one instant and one set of equipment figures, and sends them in
// time order; the write reads them one row at a time into a
// truckload.Tally, which keeps only running totals. No arithmetic on the
// figures is done in SQL: PostgreSQL's float8 → numeric cast keeps 15
// significant digits, not the shortest decimal that truckload reads each
// figure as, so the two could disagree.
func loadTotals(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *related.Vehicle, w stock.Window) (truckload.Totals, error) {
	cond, args := stock.Holding("r", w)
	rows, err := db.NewSelect().TableExpr("equipment_reservations AS r").
		Join("LEFT JOIN equipment AS e ON e.organization_id = r.organization_id AND e.id = r.equipment_id").
		Join("CROSS JOIN LATERAL (VALUES (greatest(r.start_date, ?::timestamptz), r.quantity, 0, 1), "+
			"(least(r.end_date, ?::timestamptz), 0, r.quantity, 0)) AS s (at, on_units, off_units, reservations)", w.Start, w.End).
		ColumnExpr("s.at, sum(s.on_units), sum(s.off_units), sum(s.reservations)").
		ColumnExpr("e.weight_lbs, e.case_length_in, e.case_width_in, e.case_height_in").
		Where("r.organization_id = ?", org).Where("r.vehicle_id = ?", v.ID).Where(cond, args...).
		GroupExpr("s.at, e.weight_lbs, e.case_length_in, e.case_width_in, e.case_height_in").
		OrderExpr("s.at").Rows(ctx)
	if err != nil {
		return truckload.Totals{}, database.Error(err)
	}
	defer rows.Close()
	var tally truckload.Tally
	for rows.Next() {
		var s truckload.Step
		if err := rows.Scan(&s.At, &s.On, &s.Off, &s.Reservations, &s.WeightLbs, &s.LengthIn, &s.WidthIn, &s.HeightIn); err != nil {
			return truckload.Totals{}, database.Error(err)
		}
		tally.Add(s)
	}
	if err := rows.Err(); err != nil {
		return truckload.Totals{}, database.Error(err)
	}
	return tally.Totals(v.ID, w.Start, w.End, vehicleLimits(v)), nil
}

// vehicleLimits are v's capacity figures.
func vehicleLimits(v *related.Vehicle) truckload.Limits {
	return truckload.Limits{MaxPayloadLbs: v.MaxPayloadLbs,
		LengthIn: v.InteriorLengthInches, WidthIn: v.InteriorWidthInches, HeightIn: v.InteriorHeightInches}
}

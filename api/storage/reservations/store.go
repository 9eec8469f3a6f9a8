package reservations

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one reservation of org.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Reservation, error) {
	return storage.Get[Reservation](ctx, db, org, id, Kind)
}

// ListFilter narrows the reservation list; zero values do not filter.
type ListFilter struct {
	EventID, VehicleID *uuid.UUID
	Status             string
	// Window keeps reservations whose dates overlap it (open: all).
	Window storage.DateWindow
}

// List returns one page of org's reservations.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Reservation], error) {
	var filters []storage.Cond
	if f.EventID != nil {
		filters = append(filters, storage.Where("?TableAlias.event_id = ?", *f.EventID))
	}
	if f.VehicleID != nil {
		filters = append(filters, storage.Where("?TableAlias.vehicle_id = ?", *f.VehicleID))
	}
	if f.Status != "" {
		filters = append(filters, storage.Where("?TableAlias.reservation_status = ?", f.Status))
	}
	if f.Window.Given() {
		filters = append(filters, f.Window.Cond())
	}
	return storage.List[Reservation](ctx, db, org, p, filters...)
}

// Expand inlines the requested relations (equipment, event, vehicle) into
// rs, with one query per relation for the whole slice.
func Expand(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, rs []Reservation, want map[string]bool) error {
	if want["equipment"] {
		eq, err := related.EquipmentByID(ctx, db, org, related.IDs(rs, func(r *Reservation) *uuid.UUID { return &r.EquipmentID }), false)
		if err != nil {
			return err
		}
		for i := range rs {
			rs[i].Equipment = related.Pick(eq, &rs[i].EquipmentID)
		}
	}
	if want["event"] {
		ev, err := related.Events(ctx, db, org, related.IDs(rs, func(r *Reservation) *uuid.UUID { return r.EventID }))
		if err != nil {
			return err
		}
		for i := range rs {
			rs[i].Event = related.Pick(ev, rs[i].EventID)
		}
	}
	if want["vehicle"] {
		ve, err := related.Vehicles(ctx, db, org, related.IDs(rs, func(r *Reservation) *uuid.UUID { return r.VehicleID }))
		if err != nil {
			return err
		}
		for i := range rs {
			rs[i].Vehicle = related.Pick(ve, rs[i].VehicleID)
		}
	}
	return nil
}

// Create books r (equipment, window, quantity, status and the optional
// event, vehicle, truck position and notes) for org under the stock guard
// mode (t.StockGuard). It returns the stored reservation and its warnings: overbooked in
// warn mode, over_payload and over_volume when it leaves its truck over a
// limit.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, r *Reservation, ov Override) (*Reservation, []Warning, error) {
	if err := ov.check(); err != nil {
		return nil, nil, err
	}
	var out *Reservation
	var warns []Warning
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		next := *r
		next.ID = uuid.Nil
		w, err := admit(ctx, tx, t.Org, t.StockGuard, nil, &next, ov)
		if err != nil {
			return err
		}
		if out, err = storage.Create[Reservation](ctx, tx, t, columns(nil, &next)); err != nil {
			return err
		}
		warns, err = withLoadWarnings(ctx, tx, t.Org, nil, out, w)
		return err
	})
	if err != nil {
		return nil, nil, duplicateOf(ctx, db, t.Org, r, err)
	}
	return out, warns, nil
}

// Update applies change to the reservation id of org under the stock guard.
func Update(ctx context.Context, db bun.IDB, t tenancy.Tenant, id uuid.UUID, change func(*Reservation), ov Override) (*Reservation, []Warning, error) {
	if err := ov.check(); err != nil {
		return nil, nil, err
	}
	var out, next *Reservation
	var warns []Warning
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		cur, err := storage.Get[Reservation](ctx, tx, t.Org, id, Kind, func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.For("NO KEY UPDATE")
		})
		if err != nil {
			return err
		}
		n := *cur
		next = &n
		change(next)
		if err := storage.CheckWindow(next.StartDate, next.EndDate); err != nil {
			return err
		}
		w, err := admit(ctx, tx, t.Org, t.StockGuard, cur, next, ov)
		if err != nil {
			return err
		}
		if out, err = storage.Update[Reservation](ctx, tx, t.Org, id, Kind, columns(cur, next)); err != nil {
			return err
		}
		warns, err = withLoadWarnings(ctx, tx, t.Org, cur, out, w)
		return err
	})
	if err != nil {
		return nil, nil, duplicateOf(ctx, db, t.Org, next, err)
	}
	return out, warns, nil
}

// withLoadWarnings appends the truck load warnings of the write (stored as
// out) to the stock guard's warning, if any.
func withLoadWarnings(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, cur, out *Reservation, guard *Warning) ([]Warning, error) {
	var warns []Warning
	if guard != nil {
		warns = append(warns, *guard)
	}
	load, err := loadWarnings(ctx, tx, org, cur, out)
	return append(warns, load...), err
}

// Delete removes the reservation id of org (its stock is free at once).
func Delete(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	return storage.Delete[Reservation](ctx, db, org, id, Kind)
}

// admit runs every check of a write of next (cur is the stored reservation
// on PATCH, nil on create) inside tx, in this order: the equipment row is
// locked (and must be org's), event and vehicle must be org's and the vehicle
// available, the (equipment, event) pair must be free, then the stock guard.
// It sets next's overbook fields.
func admit(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, mode tenancy.StockGuardMode, cur, next *Reservation, ov Override) (*Warning, error) {
	units, found, err := stock.LockEquipment(ctx, tx, org, next.EquipmentID)
	if err != nil {
		return nil, err
	}
	var checks errs.Findings
	if !found {
		checks.Add(errs.InvalidField("equipment_id", related.IssueNotInOrg))
	}
	if next.EventID != nil && (cur == nil || !storage.Same(cur.EventID, next.EventID)) {
		checks.Run(func() error {
			return related.Check(ctx, tx, org, related.Ref{Field: "event_id", Table: related.TableEvents, ID: next.EventID})
		})
	}
	// The truck is checked when it is assigned, and again when a
	// reservation that held nothing (cancelled, returned) holds its units
	// again: that books the truck anew. Both lock it, and so does any other
	// write that changes its load, before the load is summed (loads).
	switch {
	case next.VehicleID != nil && (cur == nil || !storage.Same(cur.VehicleID, next.VehicleID) || (!cur.counts() && next.counts())):
		checks.Run(func() error { return vehicles.Assignable(ctx, tx, org, *next.VehicleID) })
	case loads(cur, next):
		checks.Run(func() error { return vehicles.Load(ctx, tx, org, *next.VehicleID) })
	}
	if err := checks.Err(); err != nil {
		return nil, err
	}
	if err := checkDuplicate(ctx, tx, org, next); err != nil {
		return nil, err
	}
	if !next.counts() || (cur != nil && !changesClaim(cur, next)) {
		restate(next, ov)
		return nil, nil // a reservation that holds no (new) stock never blocks
	}
	var short *OverbookDetails
	var overdue *Warning
	if mode != tenancy.StockGuardOff {
		if short, overdue, err = shortage(ctx, tx, org, mode, units, next); err != nil {
			return nil, err
		}
	}
	if short != nil && cur != nil && !claimsMore(cur, next) {
		// Still over stock, but it asks for no more than before: no new
		// decision is made, so overbooked stays what the last one recorded
		// (a reservation that stock shrank under was never forced).
		next.Overbooked = cur.Overbooked
		restate(next, ov)
		return nil, nil
	}
	w, err := decide(mode, short, next, ov)
	if overdue != nil { // it fits (short is nil), so decide warned of nothing
		w = overdue
	}
	return w, err
}

// changesClaim reports whether a patch changes what stock the reservation
// holds: equipment, window, quantity or whether it counts at all.
func changesClaim(cur, next *Reservation) bool {
	return cur.EquipmentID != next.EquipmentID || !cur.StartDate.Equal(next.StartDate) ||
		!cur.EndDate.Equal(next.EndDate) || cur.Quantity != next.Quantity || cur.counts() != next.counts()
}

// claimsMore reports whether next may need stock that cur did not hold.
// Shrinking a reservation, or any patch that holds no new stock, never blocks.
func claimsMore(cur, next *Reservation) bool {
	if !cur.counts() || cur.EquipmentID != next.EquipmentID || next.Quantity > cur.Quantity {
		return true
	}
	return next.StartDate.Before(cur.StartDate) || next.EndDate.After(cur.EndDate)
}

// checkDuplicate enforces one non-cancelled reservation per (equipment,
// event): another is 409 duplicate_record naming it in details.existing_id.
func checkDuplicate(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, r *Reservation) error {
	if r.EventID == nil || r.ReservationStatus == StatusCancelled {
		return nil
	}
	var ids []uuid.UUID
	err := tx.NewSelect().Table("equipment_reservations").Column("id").
		Where("organization_id = ?", org).Where("equipment_id = ?", r.EquipmentID).
		Where("event_id = ?", *r.EventID).Where("reservation_status <> ?", StatusCancelled).
		Where("id <> ?", r.ID).Limit(1).Scan(ctx, &ids)
	if err != nil {
		return database.Error(err)
	}
	if len(ids) > 0 {
		return duplicate(ids[0])
	}
	return nil
}

func duplicate(existing uuid.UUID) error {
	return errs.New(errs.DuplicateRecord, "this equipment already has a reservation for this event").
		WithDetails(map[string]any{"field": "event_id", "existing_id": existing})
}

// pairIndex is the partial unique index behind checkDuplicate.
const pairIndex = "equipment_reservations_event_equipment_key"

// duplicateOf turns a violation of pairIndex (a race checkDuplicate could not
// see) into the same 409 as checkDuplicate; other errors pass unchanged.
func duplicateOf(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, r *Reservation, err error) error {
	var pg *pgconn.PgError
	if r == nil || !errors.As(err, &pg) || pg.ConstraintName != pairIndex {
		return err
	}
	if dupErr := checkDuplicate(ctx, db, org, r); dupErr != nil {
		return dupErr
	}
	return err
}

// columns returns the assignments that turn cur into next (every writable
// column when cur is nil).
func columns(cur, next *Reservation) storage.Changes {
	var ch storage.Changes
	all := cur == nil
	if all {
		cur = &Reservation{}
	}
	ch.SetIf(all || cur.EquipmentID != next.EquipmentID, "equipment_id", next.EquipmentID)
	ch.SetIf(all || !storage.Same(cur.EventID, next.EventID), "event_id", next.EventID)
	ch.SetIf(all || !storage.Same(cur.VehicleID, next.VehicleID), "vehicle_id", next.VehicleID)
	ch.SetIf(all || !storage.Same(cur.TruckPosition, next.TruckPosition), "truck_position", next.TruckPosition)
	ch.SetIf(all || !cur.StartDate.Equal(next.StartDate), "start_date", next.StartDate)
	ch.SetIf(all || !cur.EndDate.Equal(next.EndDate), "end_date", next.EndDate)
	ch.SetIf(all || cur.Quantity != next.Quantity, "quantity", next.Quantity)
	ch.SetIf(all || cur.ReservationStatus != next.ReservationStatus, "reservation_status", next.ReservationStatus)
	ch.SetIf(all || !storage.Same(cur.Notes, next.Notes), "notes", next.Notes)
	ch.SetIf(all || cur.Overbooked != next.Overbooked, "overbooked", next.Overbooked)
	ch.SetIf(all || !storage.Same(cur.OverbookReason, next.OverbookReason), "overbook_reason", next.OverbookReason)
	ch.SetIf(all || !storage.Same(cur.OverbookCostOwnership, next.OverbookCostOwnership), "overbook_cost_ownership", next.OverbookCostOwnership)
	return ch
}

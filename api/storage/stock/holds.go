package stock

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// LockEquipment locks the equipment row of org and returns its stock (nil:
// unlimited); found is false when org has no such equipment. Whatever
// decides from the reservations that hold its units (the stock guard, the
// warning of a stock PATCH) locks it first, so no reservation is admitted
// meanwhile. FOR NO KEY UPDATE serializes them exactly like FOR UPDATE, but
// does not block unrelated inserts whose foreign keys point at the
// equipment.
func LockEquipment(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (stock *int, found bool, err error) {
	var rows []struct {
		Stock *int `bun:"stock_quantity"`
	}
	err = tx.NewRaw("SELECT stock_quantity FROM equipment WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE",
		org, id).Scan(ctx, &rows)
	if err != nil {
		return nil, false, database.Error(err)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	return rows[0].Stock, true, nil
}

// StatusReserved is the holding status of units booked and still in the
// warehouse.
const StatusReserved = "reserved"

// HoldingStatuses are the reservation statuses that hold stock (and load a
// truck): returned and cancelled reservations hold nothing.
var HoldingStatuses = []string{StatusReserved, StatusCheckedOut}

// Holding is the one statement of which reservations count: the SQL
// condition, with its arguments, that the reservation aliased alias holds
// stock during w. The range form is what the GiST indexes
// equipment_reservations_holds_idx and equipment_reservations_vehicle_holds_idx
// serve; && on two [) ranges is exactly a.start < b.end AND b.start < a.end.
func Holding(alias string, w Window) (string, []any) {
	a := bun.Ident(alias)
	return "?.reservation_status IN (?) AND tstzrange(?.start_date, ?.end_date) && tstzrange(?, ?)",
		[]any{a, bun.List(HoldingStatuses), a, a, w.Start, w.End}
}

// Holds loads, in creation order, the reservations of org's equipment that
// hold stock during w, leaving out the reservation exclude (uuid.Nil: none).
// The stock guard calls it with the equipment row locked.
func Holds(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, equipment uuid.UUID, w Window, exclude uuid.UUID) ([]Hold, error) {
	cond, args := Holding("r", w)
	var holds []Hold
	err := db.NewSelect().TableExpr("equipment_reservations AS r").
		Column("r.id", "r.event_id", "r.quantity", "r.start_date", "r.end_date").
		Where("r.organization_id = ?", org).Where("r.equipment_id = ?", equipment).
		Where(cond, args...).Where("r.id <> ?", exclude).
		OrderExpr("r.created_at, r.id").Scan(ctx, &holds)
	return holds, database.Error(err)
}

// availabilityRow is one equipment record joined with one of its holds (the
// hold columns are null when it has none in the window).
type availabilityRow struct {
	EquipmentID uuid.UUID  `bun:"equipment_id"`
	Stock       *int       `bun:"stock_quantity"`
	ID          *uuid.UUID `bun:"id"`
	EventID     *uuid.UUID `bun:"event_id"`
	Quantity    *int       `bun:"quantity"`
	Start       *time.Time `bun:"start_date"`
	End         *time.Time `bun:"end_date"`
}

// ErrTooManyHolds is the answer of a read bounded to max reservations
// whose window holds more.
var ErrTooManyHolds = errors.New("the window holds more reservations than one answer lists")

// Availability returns the profile over w of each equipment record of org
// named in ids, with one query whatever the number of ids. Ids that name no
// equipment of org are absent from the map (another organization's
// equipment looks exactly like a missing one). With max above 0 it reads
// at most max holds in all and returns ErrTooManyHolds when the window
// holds more: the query stops after max+len(ids)+1 rows (one per hold, and
// one per record without any), so a refused answer costs no more than the
// largest one given.
func Availability(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, w Window, max int) (map[uuid.UUID]Profile, error) {
	out := make(map[uuid.UUID]Profile, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	cond, args := Holding("r", w)
	var rows []availabilityRow
	q := db.NewSelect().TableExpr("equipment AS e").
		ColumnExpr("e.id AS equipment_id, e.stock_quantity").
		ColumnExpr("r.id, r.event_id, r.quantity, r.start_date, r.end_date").
		Join("LEFT JOIN equipment_reservations AS r ON r.organization_id = e.organization_id AND r.equipment_id = e.id AND "+cond, args...).
		Where("e.organization_id = ?", org).Where("e.id IN (?)", bun.List(ids)).
		OrderExpr("e.id, r.created_at, r.id")
	if max > 0 {
		q = q.Limit(int64(max + len(ids) + 1))
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, database.Error(err)
	}
	stocks := map[uuid.UUID]*int{}
	holds := map[uuid.UUID][]Hold{}
	held := 0
	for _, r := range rows {
		stocks[r.EquipmentID] = r.Stock
		if r.ID != nil {
			held++
			holds[r.EquipmentID] = append(holds[r.EquipmentID],
				Hold{ID: *r.ID, EventID: r.EventID, Quantity: *r.Quantity, Start: *r.Start, End: *r.End})
		}
	}
	if max > 0 && (held > max || len(rows) > max+len(ids)) {
		return nil, ErrTooManyHolds
	}
	for id, s := range stocks {
		out[id] = Compute(s, w, holds[id])
	}
	return out, nil
}

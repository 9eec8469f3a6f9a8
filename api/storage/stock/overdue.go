package stock

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// StatusCheckedOut is the holding status of units that have left the
// warehouse.
const StatusCheckedOut = "checked_out"

// MaxNamed bounds the reservations an answer names when it counts them
// all beside (Overdue, and the warnings of storage/reservations).
const MaxNamed = 100

// OverdueBefore is the one statement of which reservations are overdue
// before t: the SQL condition, with its arguments, that the reservation
// aliased alias is checked out and its window ended both before now (the
// transaction's time) and before t, so that a window starting at t does not
// overlap it and Holding does not count it. Its units have not come back:
// a booking that starts at t counts them as free only if they are returned
// by then (docs/availability.md, "Overdue returns"). The partial index
// equipment_reservations_checked_out_idx serves it: the checked-out
// reservations of an equipment record by end.
func OverdueBefore(alias string, t time.Time) (string, []any) {
	a := bun.Ident(alias)
	return "?.reservation_status = ? AND ?.end_date <= least(now(), ?)", []any{a, StatusCheckedOut, a, t}
}

// Overdue is what is overdue of one equipment record before a window:
// Quantity units held by Count reservations, the first MaxNamed of them
// named, the longest overdue (the earliest end) first.
type Overdue struct {
	Quantity       int         `json:"quantity"`
	Count          int         `json:"count"`
	ReservationIDs []uuid.UUID `json:"reservation_ids"`
}

// OverdueOf returns what is overdue before w.Start (OverdueBefore) of each
// of org's equipment records named in ids, leaving out the reservation
// exclude (uuid.Nil: none), with one query; a record with nothing overdue
// is absent from the map. Per record it reads the partial index
// equipment_reservations_checked_out_idx twice, index-only: once for the
// sum, once in its order for the first MaxNamed, so a history of many
// checked-out reservations never returned is neither fetched nor sorted.
func OverdueOf(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, w Window, exclude uuid.UUID) (map[uuid.UUID]Overdue, error) {
	out := map[uuid.UUID]Overdue{}
	if len(ids) == 0 {
		return out, nil
	}
	cond, args := OverdueBefore("r", w.Start)
	of := "r.organization_id = ? AND r.equipment_id = e.id AND " + cond + " AND r.id <> ?"
	ofArgs := slices.Concat([]any{org}, args, []any{exclude})
	var rows []struct {
		EquipmentID uuid.UUID `bun:"equipment_id"`
		Quantity    int       `bun:"quantity"`
		Count       int       `bun:"count"`
		IDs         []string  `bun:"ids,array"`
	}
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = id.String()
	}
	err := db.NewRaw(`SELECT e.id AS equipment_id, t.quantity, t.count, n.ids
		FROM unnest(?::uuid[]) AS e (id)
		CROSS JOIN LATERAL (SELECT sum(r.quantity) AS quantity, count(*) AS count
			FROM equipment_reservations AS r WHERE `+of+`) AS t
		CROSS JOIN LATERAL (SELECT array_agg(x.id::text ORDER BY x.end_date, x.id) AS ids
			FROM (SELECT r.id, r.end_date FROM equipment_reservations AS r WHERE `+of+`
			      ORDER BY r.end_date, r.id LIMIT ?) AS x) AS n
		WHERE t.count > 0`,
		slices.Concat([]any{pgdialect.Array(texts)}, ofArgs, ofArgs, []any{MaxNamed})...).Scan(ctx, &rows)
	if err != nil {
		return nil, database.Error(err)
	}
	for _, r := range rows {
		o := Overdue{Quantity: r.Quantity, Count: r.Count, ReservationIDs: make([]uuid.UUID, len(r.IDs))}
		for i, s := range r.IDs {
			if o.ReservationIDs[i], err = uuid.Parse(s); err != nil {
				return nil, err
			}
		}
		out[r.EquipmentID] = o
	}
	return out, nil
}

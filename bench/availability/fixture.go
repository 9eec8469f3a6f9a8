// Package availability benchmarks the planning endpoints through the whole
// app (key, rate limiter, handler, PostgreSQL) over loopback HTTP:
// GET /equipment/{id}/availability for one equipment record with 10,000
// reservations, and GET /availability for 100 equipment records at once.
// It reports p50 and p90 latency besides Go's mean (ns/op). Its test checks
// what the figures rely on: each answer is one query, served by the GiST
// index equipment_reservations_holds_idx.
//
// Run: go test -run '^$' -bench . -benchtime 2000x ./bench/availability/
package availability

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Sizes of the fixture.
const (
	// Reservations of the busy equipment record: one every 3.5 hours over
	// four years (2024–2027), 1–4 days long, every status.
	BusyReservations = 10_000
	// Batch is the number of equipment records of the batch question, each
	// with 100 reservations (two-week cycle over four years).
	Batch = 100
)

// origin is the start of the fixture's history.
var origin = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Window is the question's window: one week in the middle of the history,
// as a planner asks about an upcoming week.
var Window = [2]time.Time{time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)}

// Fixture is the seeded organization.
type Fixture struct {
	Org   uuid.UUID
	Busy  uuid.UUID
	Batch []uuid.UUID
}

// Seed fills org with the fixture (and other with the same amount of
// noise, so the index must separate organizations) in a few INSERT …
// SELECT statements.
func Seed(ctx context.Context, db bun.IDB, org, other uuid.UUID) (*Fixture, error) {
	f := &Fixture{Org: org}
	for _, o := range []uuid.UUID{org, other} {
		var ids []uuid.UUID
		if err := db.NewRaw(`INSERT INTO equipment (organization_id, name, stock_quantity)
			SELECT ?, 'Equipment ' || g, 60 FROM generate_series(0, ?) g RETURNING id`, o, Batch).Scan(ctx, &ids); err != nil {
			return nil, fmt.Errorf("seed equipment: %w", err)
		}
		busy, batch := ids[0], ids[1:]
		if _, err := db.NewRaw(`INSERT INTO equipment_reservations (organization_id, equipment_id, start_date, end_date, quantity, reservation_status)
			SELECT ?0, ?1, ?2::timestamptz + g * interval '210 minutes', ?2::timestamptz + g * interval '210 minutes' + (1 + g % 4) * interval '1 day',
			  1 + g % 3, (ARRAY['reserved','checked_out','returned','cancelled','reserved'])[1 + g % 5]
			FROM generate_series(1, ?3) g`, o, busy, origin, BusyReservations).Exec(ctx); err != nil {
			return nil, fmt.Errorf("seed busy reservations: %w", err)
		}
		if _, err := db.NewRaw(`INSERT INTO equipment_reservations (organization_id, equipment_id, start_date, end_date, quantity, reservation_status)
			SELECT ?0, e.id, ?1::timestamptz + g * interval '14 days' + (abs(hashtext(e.id::text)) % 7) * interval '1 day',
			  ?1::timestamptz + g * interval '14 days' + (abs(hashtext(e.id::text)) % 7 + 3) * interval '1 day', 2, 'reserved'
			FROM equipment e, generate_series(1, 100) g WHERE e.organization_id = ?0 AND e.id IN (?2)`, o, origin, bun.List(batch)).Exec(ctx); err != nil {
			return nil, fmt.Errorf("seed batch reservations: %w", err)
		}
		if o == org {
			f.Busy, f.Batch = busy, batch
		}
	}
	if _, err := db.ExecContext(ctx, "VACUUM (ANALYZE) equipment, equipment_reservations"); err != nil {
		return nil, err
	}
	return f, nil
}

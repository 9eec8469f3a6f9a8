package demo

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// seedBookings runs the bookings step on a catalogue built by rows.
func seedBookings(t *testing.T, db bun.IDB, s *seeder) {
	t.Helper()
	err := database.RunInTx(context.Background(), db, func(ctx context.Context, tx bun.Tx) error {
		s.tx = tx
		return s.bookings(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBookingsSeed(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, err := tenancy.CreateOrganization(ctx, db, "Demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := &bookingtest.Rows{T: t, DB: db, Org: org.ID}
	s := &seeder{t: tenancy.Tenant{Org: org.OrgID(), Demo: true}}
	s.clients = []uuid.UUID{rows.Client("Harbor")}
	s.events = []uuid.UUID{rows.Event("Festival"), rows.Event("Summit")}
	for _, name := range []string{"Line array", "Sub", "Console", "Moving head", "Projector", "Screen"} {
		s.equipment = append(s.equipment, rows.Equipment(name, bookingtest.Stock(8), nil))
	}
	s.vehicles = []uuid.UUID{rows.Vehicle("Van", "maintenance"), rows.Vehicle("Truck", "available")}
	seedBookings(t, db, s)

	for table, want := range map[string]int{"equipment_reservations": 4, "quotes": 2, "quote_line_items": 5 + 3,
		"invoices": 1, "invoice_line_items": 5, "pick_lists": 1, "pick_list_items": 5} {
		if n := rows.Count(table); n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	var check struct {
		OnTruck     int    `bun:"on_truck"`
		ListStatus  string `bun:"list_status"`
		Loaded      int    `bun:"loaded"`
		Pending     int    `bun:"pending"`
		Approved    int    `bun:"approved"`
		InvoiceOK   bool   `bun:"invoice_ok"`
		AllDemo     bool   `bun:"all_demo"`
		Overbooked  int    `bun:"overbooked"`
		QuoteNumber string `bun:"quote_number"`
	}
	err = db.NewRaw(`SELECT
		(SELECT count(*) FROM equipment_reservations WHERE organization_id = ?0 AND vehicle_id = ?1 AND truck_position IS NOT NULL) AS on_truck,
		(SELECT status FROM pick_lists WHERE organization_id = ?0) AS list_status,
		(SELECT count(*) FROM pick_list_items WHERE organization_id = ?0 AND stage = 'loaded') AS loaded,
		(SELECT count(*) FROM pick_list_items WHERE organization_id = ?0 AND stage = 'pending') AS pending,
		(SELECT count(*) FROM quotes q JOIN pick_lists p ON p.quote_id = q.id WHERE q.organization_id = ?0 AND q.status = 'approved') AS approved,
		(SELECT i.total_amount = q.total_amount AND i.total_amount > 0 FROM invoices i, quotes q
		  WHERE i.organization_id = ?0 AND q.organization_id = ?0 AND q.status = 'approved') AS invoice_ok,
		(SELECT bool_and(demo) FROM (SELECT demo FROM quotes WHERE organization_id = ?0
		  UNION ALL SELECT demo FROM pick_list_items WHERE organization_id = ?0) d) AS all_demo,
		(SELECT count(*) FROM equipment_reservations WHERE organization_id = ?0 AND overbooked) AS overbooked,
		(SELECT min(quote_number) FROM quotes WHERE organization_id = ?0) AS quote_number`,
		org.ID, s.vehicles[1]).Scan(ctx, &check)
	if err != nil {
		t.Fatal(err)
	}
	if check.OnTruck != 4 || check.ListStatus != "in_progress" || check.Loaded != 1 || check.Pending != 2 ||
		check.Approved != 1 || !check.InvoiceOK || !check.AllDemo || check.Overbooked != 0 || check.QuoteNumber != "Q-000001" {
		t.Errorf("seeded bookings = %+v", check)
	}
}

func TestBookingsSeedWithoutCatalogue(t *testing.T) {
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(context.Background(), db, "Empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	seedBookings(t, db, &seeder{t: tenancy.Tenant{Org: org.OrgID()}})
	rows := &bookingtest.Rows{T: t, DB: db, Org: org.ID}
	if n := rows.Count("quotes") + rows.Count("equipment_reservations"); n != 0 {
		t.Errorf("%d rows seeded without a catalogue", n)
	}
}

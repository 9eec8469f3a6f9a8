package demo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestRefreshMovesTheDemosTimeline: an organization seeded some days ago
// (its events and reservations all that much earlier than a seed today
// puts them) no longer shows the showcase next week; Refresh moves the
// demo's events and their reservations back by those days, so the
// walkthrough answers as on the seed day: at 10 and 13 days, moving the
// showcase alone put it on the gala's week, over the truck's payload. The
// organization's own event and its reservation stay, and so does another
// organization. A second Refresh, and one of an organization without a
// showcase, move nothing.
func TestRefreshMovesTheDemosTimeline(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	for _, days := range []int{5, 10, 13} {
		t.Run(fmt.Sprintf("%d days", days), func(t *testing.T) {
			aged, other := seededOrg(t, db, "Aged"), seededOrg(t, db, "Other")
			own := ownBooking(t, db, aged)
			age(t, db, aged, days)
			// An event of the organization's own, made after the seed, whose
			// name is a demo event's: it stays.
			namesake, err := events.Create(ctx, db, aged, cols{"name": demoEvents(time.Now())[0].name, "status": events.StatusConfirmed,
				"venue": "Our own venue", "start_date": time.Now().UTC().AddDate(0, 2, 0).Truncate(time.Hour),
				"end_date": time.Now().UTC().AddDate(0, 2, 1).Truncate(time.Hour)}.changes())
			if err != nil {
				t.Fatal(err)
			}
			if problems := showcaseProblems(t, db, aged.Org); len(problems) == 0 {
				t.Fatal("the aged organization still shows the showcase next week: the test ages nothing")
			}
			before, otherBefore := reservationStarts(t, db, aged.Org), reservationStarts(t, db, other.Org)
			invoicesBefore := invoiceDays(t, db, aged)

			done, err := Refresh(ctx, db, aged, time.Now())
			if err != nil || !done.Moved {
				t.Fatalf("Refresh: %+v, %v; want moved", done, err)
			}
			var namesakeStart time.Time
			if err := db.NewRaw(`SELECT start_date FROM events WHERE organization_id = ? AND id = ?`, aged.Org.UUID, namesake.ID).Scan(ctx, &namesakeStart); err != nil {
				t.Fatal(err)
			}
			if !namesakeStart.Equal(namesake.StartDate) {
				t.Errorf("the organization's own %q moved from %v to %v", namesake.Name, namesake.StartDate, namesakeStart)
			}
			if problems := showcaseProblems(t, db, aged.Org); len(problems) > 0 {
				t.Errorf("after Refresh: %v", problems)
			}
			if got := invoiceDays(t, db, aged); len(got) == 0 || strings.Join(got, "; ") != strings.Join(invoicesBefore, "; ") {
				t.Errorf("the invoices' days from their event's start: %v after Refresh, %v before; want them kept", got, invoicesBefore)
			}
			after := reservationStarts(t, db, aged.Org)
			for id, start := range before {
				want := time.Duration(days) * 24 * time.Hour
				if id == own {
					want = 0
				}
				if d := after[id].Sub(start); d != want {
					t.Errorf("reservation %s moved by %v, want %v", id, d, want)
				}
			}
			for id, start := range otherBefore {
				if now := reservationStarts(t, db, other.Org)[id]; !now.Equal(start) {
					t.Errorf("the other organization's reservation %s moved from %v to %v", id, start, now)
				}
			}
			if done, err := Refresh(ctx, db, aged, time.Now()); err != nil || done != (Refreshed{}) {
				t.Errorf("second Refresh: %+v, %v; want nothing moved", done, err)
			}
		})
	}
	empty, err := tenancy.CreateOrganization(ctx, db, "Empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	if done, err := Refresh(ctx, db, tenancy.Tenant{Org: empty.OrgID()}, time.Now()); err != nil || done != (Refreshed{}) {
		t.Errorf("Refresh without a showcase: %+v, %v; want nothing moved", done, err)
	}
}

// TestRefreshLeavesAnEditedShowcase: a showcase whose event was moved
// apart from its truck lines (a PATCH of the event's dates moves no
// reservation) is left as it is: a shift by the event's offset would put
// the lines a month before the event.
func TestRefreshLeavesAnEditedShowcase(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	edited := seededOrg(t, db, "Edited")
	if _, err := db.NewRaw(`UPDATE events SET start_date = start_date + interval '30 days', end_date = end_date + interval '30 days'
		WHERE organization_id = ? AND name = ?`, edited.Org.UUID, showcaseName).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	before := reservationStarts(t, db, edited.Org)
	if done, err := Refresh(ctx, db, edited, time.Now()); err != nil || done != (Refreshed{}) {
		t.Fatalf("Refresh of an edited showcase: %+v, %v; want nothing moved", done, err)
	}
	for id, start := range reservationStarts(t, db, edited.Org) {
		if !start.Equal(before[id]) {
			t.Errorf("reservation %s moved from %v to %v", id, before[id], start)
		}
	}
}

// TestRefreshNeverOversells: when the organization's own reservation holds
// the week the demo would move onto, moving the showcase's lines there
// would oversell the console (the stock guard's rule, which a plain UPDATE
// skipped): Refresh moves nothing and says why.
func TestRefreshNeverOversells(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	booked := seededOrg(t, db, "Booked")
	age(t, db, booked, 7)
	var console struct {
		ID    uuid.UUID `bun:"id"`
		Stock int       `bun:"stock_quantity"`
	}
	if err := db.NewRaw(`SELECT id, stock_quantity FROM equipment WHERE organization_id = ? AND name = ?`,
		booked.Org.UUID, shortItem).Scan(ctx, &console); err != nil {
		t.Fatal(err)
	}
	start, end := showcaseDates(time.Now())
	if _, _, err := reservations.Create(ctx, db, booked.WithStockGuard(tenancy.StockGuardBlock), &reservations.Reservation{
		EquipmentID: console.ID, StartDate: start, EndDate: end, Quantity: console.Stock,
		ReservationStatus: reservations.StatusReserved}, reservations.Override{}); err != nil {
		t.Fatalf("the whole stock for the showcase's week, which the aged demo left free: %v", err)
	}
	before := reservationStarts(t, db, booked.Org)
	done, err := Refresh(ctx, db, booked, time.Now())
	if err != nil || done.Moved || !strings.Contains(done.Skipped, shortItem) {
		t.Fatalf("Refresh: %+v, %v; want nothing moved, and why", done, err)
	}
	for id, start := range reservationStarts(t, db, booked.Org) {
		if !start.Equal(before[id]) {
			t.Errorf("reservation %s moved from %v to %v", id, before[id], start)
		}
	}
}

// age moves every event, reservation and invoice of tt back by days, as a
// seed that many days old left them.
func age(t *testing.T, db bun.IDB, tt tenancy.Tenant, days int) {
	t.Helper()
	for _, table := range []string{"events", "equipment_reservations"} {
		if _, err := db.NewRaw(`UPDATE ? SET start_date = start_date - ? * interval '1 day', end_date = end_date - ? * interval '1 day'
			WHERE organization_id = ?`, bun.Ident(table), days, days, tt.Org.UUID).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.NewRaw(`UPDATE invoices SET issue_date = issue_date - ?, due_date = due_date - ? WHERE organization_id = ?`,
		days, days, tt.Org.UUID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// invoiceDays is, for each invoice of tt's organization with an event, the
// days from its event's start to its issue and due dates.
func invoiceDays(t *testing.T, db bun.IDB, tt tenancy.Tenant) []string {
	t.Helper()
	var out []string
	if err := db.NewRaw(`SELECT i.invoice_number || ': ' || (i.issue_date - e.start_date::date) || ', ' || (i.due_date - e.start_date::date)
		FROM invoices i JOIN events e ON e.organization_id = i.organization_id AND e.id = i.event_id
		WHERE i.organization_id = ? ORDER BY i.invoice_number`, tt.Org.UUID).Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// seededOrg creates an organization named name with the demo's data.
func seededOrg(t *testing.T, db bun.IDB, name string) tenancy.Tenant {
	t.Helper()
	org, err := tenancy.CreateOrganization(context.Background(), db, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	tt := tenancy.Tenant{Org: org.OrgID()}
	if err := Seed(context.Background(), db, tt); err != nil {
		t.Fatal(err)
	}
	return tt
}

// ownBooking gives the organization an event of its own, not the demo's,
// with a reservation of a console, and returns the reservation's id.
func ownBooking(t *testing.T, db bun.IDB, tt tenancy.Tenant) string {
	t.Helper()
	ctx := context.Background()
	start := time.Now().UTC().Truncate(time.Hour).AddDate(0, 0, 30)
	ev, err := events.Create(ctx, db, tt, cols{"name": "Our own corporate show", "status": events.StatusConfirmed,
		"venue": "Our warehouse", "start_date": start, "end_date": start.Add(8 * time.Hour)}.changes())
	if err != nil {
		t.Fatal(err)
	}
	var console uuid.UUID
	if err := db.NewRaw(`SELECT id FROM equipment WHERE organization_id = ? AND name = ?`, tt.Org.UUID, shortItem).Scan(ctx, &console); err != nil {
		t.Fatal(err)
	}
	r, _, err := reservations.Create(ctx, db, tt.WithStockGuard(tenancy.StockGuardWarn), &reservations.Reservation{EquipmentID: console,
		EventID: &ev.ID, StartDate: start, EndDate: start.Add(8 * time.Hour), Quantity: 1, ReservationStatus: reservations.StatusReserved},
		reservations.Override{})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID.String()
}

// reservationStarts maps org's reservations to their start dates.
func reservationStarts(t *testing.T, db bun.IDB, org tenancy.OrganizationID) map[string]time.Time {
	t.Helper()
	var rows []struct {
		ID    string    `bun:"id"`
		Start time.Time `bun:"start_date"`
	}
	if err := db.NewRaw(`SELECT id::text AS id, start_date FROM equipment_reservations WHERE organization_id = ?`,
		org.UUID).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Start
	}
	return out
}

package demo

import (
	"context"
	"fmt"
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
			for _, table := range []string{"events", "equipment_reservations"} {
				if _, err := db.NewRaw(`UPDATE ? SET start_date = start_date - ? * interval '1 day', end_date = end_date - ? * interval '1 day'
					WHERE organization_id = ?`, bun.Ident(table), days, days, aged.Org.UUID).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if problems := showcaseProblems(t, db, aged.Org); len(problems) == 0 {
				t.Fatal("the aged organization still shows the showcase next week: the test ages nothing")
			}
			before, otherBefore := reservationStarts(t, db, aged.Org), reservationStarts(t, db, other.Org)

			moved, err := Refresh(ctx, db, aged, time.Now())
			if err != nil || !moved {
				t.Fatalf("Refresh: moved %v, %v; want moved", moved, err)
			}
			if problems := showcaseProblems(t, db, aged.Org); len(problems) > 0 {
				t.Errorf("after Refresh: %v", problems)
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
			if moved, err := Refresh(ctx, db, aged, time.Now()); err != nil || moved {
				t.Errorf("second Refresh: moved %v, %v; want nothing moved", moved, err)
			}
		})
	}
	empty, err := tenancy.CreateOrganization(ctx, db, "Empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	if moved, err := Refresh(ctx, db, tenancy.Tenant{Org: empty.OrgID()}, time.Now()); err != nil || moved {
		t.Errorf("Refresh without a showcase: moved %v, %v; want nothing moved", moved, err)
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
	if moved, err := Refresh(ctx, db, edited, time.Now()); err != nil || moved {
		t.Fatalf("Refresh of an edited showcase: moved %v, %v; want nothing moved", moved, err)
	}
	for id, start := range reservationStarts(t, db, edited.Org) {
		if !start.Equal(before[id]) {
			t.Errorf("reservation %s moved from %v to %v", id, before[id], start)
		}
	}
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

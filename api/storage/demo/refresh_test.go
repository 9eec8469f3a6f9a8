package demo

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestRefreshMovesTheShowcase: an organization seeded five days ago (its
// events and reservations all five days earlier) no longer shows the
// showcase next week; Refresh moves the showcase's event and reservations
// back, and nothing else: not its other records, not another
// organization's. A second Refresh, and one of an organization without a
// showcase, move nothing.
func TestRefreshMovesTheShowcase(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	seeded := func(name string) tenancy.Tenant {
		org, err := tenancy.CreateOrganization(ctx, db, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		tt := tenancy.Tenant{Org: org.OrgID()}
		if err := Seed(ctx, db, tt); err != nil {
			t.Fatal(err)
		}
		return tt
	}
	aged, other := seeded("Aged"), seeded("Other")
	for _, table := range []string{"events", "equipment_reservations"} {
		if _, err := db.NewRaw(`UPDATE ? SET start_date = start_date - interval '5 days', end_date = end_date - interval '5 days'
			WHERE organization_id = ?`, bun.Ident(table), aged.Org.UUID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if problems := showcaseProblems(t, db, aged.Org); len(problems) == 0 {
		t.Fatal("the aged organization still shows the showcase next week: the test ages nothing")
	}
	startsBefore := reservationStarts(t, db, aged.Org)
	otherBefore := reservationStarts(t, db, other.Org)

	moved, err := Refresh(ctx, db, aged, time.Now())
	if err != nil || !moved {
		t.Fatalf("Refresh: moved %v, %v; want moved", moved, err)
	}
	if problems := showcaseProblems(t, db, aged.Org); len(problems) > 0 {
		t.Errorf("after Refresh: %v", problems)
	}
	startsAfter := reservationStarts(t, db, aged.Org)
	movedRows := 0
	for id, before := range startsBefore {
		switch d := startsAfter[id].Sub(before); d {
		case 0:
		case 5 * 24 * time.Hour:
			movedRows++
		default:
			t.Errorf("reservation %s moved by %v, want 0 or 5 days", id, d)
		}
	}
	// The showcase's truck lines and the breakout: the other bookings stay.
	if want := len(plannerLoad) + 1; movedRows != want || len(startsBefore) <= want {
		t.Errorf("%d of %d reservations moved, want the showcase's %d", movedRows, len(startsBefore), want)
	}
	if otherAfter := reservationStarts(t, db, other.Org); len(otherAfter) != len(otherBefore) {
		t.Errorf("the other organization has %d reservations, had %d", len(otherAfter), len(otherBefore))
	} else {
		for id, before := range otherBefore {
			if !otherAfter[id].Equal(before) {
				t.Errorf("the other organization's reservation %s moved from %v to %v", id, before, otherAfter[id])
			}
		}
	}

	if moved, err := Refresh(ctx, db, aged, time.Now()); err != nil || moved {
		t.Errorf("second Refresh: moved %v, %v; want nothing moved", moved, err)
	}
	empty, err := tenancy.CreateOrganization(ctx, db, "Empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	if moved, err := Refresh(ctx, db, tenancy.Tenant{Org: empty.OrgID()}, time.Now()); err != nil || moved {
		t.Errorf("Refresh without a showcase: moved %v, %v; want nothing moved", moved, err)
	}
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

package main

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestDemoMovesAStaleShowcase: a second run on the day of the first moves
// nothing; a run five days after the first (the organizations' events and
// reservations made five days older) moves the planner's showcase of both
// the demo organization and its sandbox back to next week, and says so.
func TestDemoMovesAStaleShowcase(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("EVENTAPI_DATABASE_URL", dbURL)
	t.Setenv("EVENTAPI_REDIS_URL", "")
	if _, err := runCLI(t, "migrate", "up"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	orgs := []any{first["organization_id"], first["sandbox_organization_id"]}
	showcaseStarts := func() []time.Time {
		t.Helper()
		starts := make([]time.Time, len(orgs))
		for i, org := range orgs {
			if err := db.NewRaw(`SELECT start_date FROM events WHERE organization_id = ? AND name = 'Pacific Sound Showcase'`,
				org).Scan(ctx, &starts[i]); err != nil {
				t.Fatalf("the showcase of %v: %v", org, err)
			}
		}
		return starts
	}
	seeded := showcaseStarts()

	again, err := runCLI(t, "demo", "--output", "json")
	if err != nil || again["reused"] != true || again["showcase_moved"] != false {
		t.Fatalf("second run the same day: %v, %v; want reused, showcase not moved", again, err)
	}
	for _, table := range []string{"events", "equipment_reservations"} {
		for _, org := range orgs {
			if _, err := db.NewRaw(`UPDATE `+table+` SET start_date = start_date - interval '5 days', end_date = end_date - interval '5 days'
				WHERE organization_id = ?`, org).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := nextShowcase(time.Now())
	later, err := runCLI(t, "demo", "--output", "json")
	after := nextShowcase(time.Now())
	if err != nil || later["reused"] != true || later["showcase_moved"] != true {
		t.Fatalf("run five days later: %v, %v; want reused, showcase moved", later, err)
	}
	for i, start := range showcaseStarts() {
		if !start.Equal(before) && !start.Equal(after) {
			t.Errorf("the showcase of %v starts %v after the later run, want %v (seeded at %v)", orgs[i], start, after, seeded[i])
		}
	}
}

// nextShowcase is when a seed at now starts the showcase: 08:00 UTC eight
// days on (the run may cross midnight, so the test takes it before and after).
func nextShowcase(now time.Time) time.Time {
	return now.UTC().Truncate(24*time.Hour).AddDate(0, 0, 8).Add(8 * time.Hour)
}

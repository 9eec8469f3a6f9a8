package demo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestPlannerSeed: after the whole seed, the first truck is nearly full (by
// weight, not over) during next week's showcase, and the console is short
// next week (one more booked than stock) while available the week after.
func TestPlannerSeed(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, err := tenancy.CreateOrganization(ctx, db, "Demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Seed(ctx, db, tenancy.Tenant{Org: org.OrgID(), Demo: true}); err != nil {
		t.Fatal(err)
	}
	if problems := showcaseProblems(t, db, org.OrgID()); len(problems) > 0 {
		t.Error(problems)
	}
}

// showcaseProblems says what of the planner's showcase an organization
// does not answer next week, if anything.
func showcaseProblems(t *testing.T, db bun.IDB, org tenancy.OrganizationID) []string {
	t.Helper()
	ctx := context.Background()
	var problems []string
	var truckID, consoleID string
	if err := db.NewRaw(`SELECT (SELECT id FROM vehicles WHERE organization_id = ?0 AND name = 'Truck 1')::text,
		(SELECT id FROM equipment WHERE organization_id = ?0 AND name = ?1)::text`, org.UUID, shortItem).Scan(ctx, &truckID, &consoleID); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Truncate(24 * time.Hour)
	nextWeek := stock.Window{Start: day.AddDate(0, 0, 7), End: day.AddDate(0, 0, 14)}

	vs, err := related.Vehicles(ctx, db, org, uuidsOf(t, truckID))
	if err != nil {
		t.Fatal(err)
	}
	load, rs, err := reservations.VehicleLoad(ctx, db, org, vs[uuidsOf(t, truckID)[0]], nextWeek, 0)
	if err != nil {
		t.Fatal(err)
	}
	share := load.PayloadLbs / float64(*load.MaxPayloadLbs)
	if share < 0.9 || load.OverPayload || load.OverVolume || len(rs) != len(plannerLoad) {
		problems = append(problems, fmt.Sprintf("truck next week: %.0f of %d lbs (%d lines), over %v/%v", load.PayloadLbs, *load.MaxPayloadLbs, len(rs), load.OverPayload, load.OverVolume))
	}
	console := uuidsOf(t, consoleID)
	short, err := stock.Availability(ctx, db, org, console, nextWeek, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := short[console[0]]; p.MinAvailable == nil || *p.MinAvailable >= 0 {
		problems = append(problems, fmt.Sprintf("console next week: min_available %s, want short (< 0)", orNull(p.MinAvailable)))
	}
	later, err := stock.Availability(ctx, db, org, console, stock.Window{Start: nextWeek.End, End: nextWeek.End.AddDate(0, 0, 5)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := later[console[0]]; p.MinAvailable == nil || *p.MinAvailable <= 0 {
		problems = append(problems, fmt.Sprintf("console the week after: min_available %s, want free", orNull(p.MinAvailable)))
	}
	return problems
}

// orNull writes n, or null for nil.
func orNull(n *int) string {
	if n == nil {
		return "null"
	}
	return fmt.Sprint(*n)
}

func uuidsOf(t *testing.T, ids ...string) []uuid.UUID {
	t.Helper()
	out := make([]uuid.UUID, len(ids))
	for i, s := range ids {
		id, err := uuid.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = id
	}
	return out
}

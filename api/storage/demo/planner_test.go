package demo

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

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
	var truckID, consoleID string
	if err := db.NewRaw(`SELECT (SELECT id FROM vehicles WHERE organization_id = ?0 AND name = 'Truck 1')::text,
		(SELECT id FROM equipment WHERE organization_id = ?0 AND name = ?1)::text`, org.ID, shortItem).Scan(ctx, &truckID, &consoleID); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Truncate(24 * time.Hour)
	nextWeek := stock.Window{Start: day.AddDate(0, 0, 7), End: day.AddDate(0, 0, 14)}

	vs, err := related.Vehicles(ctx, db, org.OrgID(), uuidsOf(t, truckID))
	if err != nil {
		t.Fatal(err)
	}
	load, rs, err := reservations.VehicleLoad(ctx, db, org.OrgID(), vs[uuidsOf(t, truckID)[0]], nextWeek, 0)
	if err != nil {
		t.Fatal(err)
	}
	share := load.PayloadLbs / float64(*load.MaxPayloadLbs)
	if share < 0.9 || load.OverPayload || load.OverVolume || len(rs) != len(plannerLoad) {
		t.Errorf("truck next week: %.0f of %d lbs (%d lines), over %v/%v", load.PayloadLbs, *load.MaxPayloadLbs, len(rs), load.OverPayload, load.OverVolume)
	}
	console := uuidsOf(t, consoleID)
	short, err := stock.Availability(ctx, db, org.ID, console, nextWeek, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := short[console[0]]; p.MinAvailable == nil || *p.MinAvailable >= 0 {
		t.Errorf("console next week: min_available %v, want short (< 0)", p.MinAvailable)
	}
	later, err := stock.Availability(ctx, db, org.ID, console, stock.Window{Start: nextWeek.End, End: nextWeek.End.AddDate(0, 0, 5)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := later[console[0]]; p.MinAvailable == nil || *p.MinAvailable <= 0 {
		t.Errorf("console the week after: min_available %v, want free", p.MinAvailable)
	}
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

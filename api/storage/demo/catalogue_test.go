package demo

import (
	"context"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestCatalogue seeds the catalogue step into a fresh organization and
// checks it is the rental house the demo promises, with every id recorded.
func TestCatalogue(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, err := tenancy.CreateOrganization(ctx, db, "Demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	var s *seeder
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		s = &seeder{tx: tx, t: tenancy.Tenant{Org: org.OrgID(), Demo: true}}
		return s.catalogue(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func(table string, where string, args ...any) int {
		q := db.NewSelect().Table(table).Where("organization_id = ?", org.ID).Where("demo")
		if where != "" {
			q = q.Where(where, args...)
		}
		n, err := q.Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	tests := []struct {
		what     string
		got      int
		min, max int
		ids      []uuid.UUID
	}{
		{"categories", count("equipment_categories", ""), 6, 8, s.categories},
		{"equipment", count("equipment", ""), 22, 30, s.equipment},
		{"equipment without category", count("equipment", "category_id IS NULL"), 0, 0, nil},
		{"equipment without rate or stock", count("equipment", "daily_rate IS NULL OR stock_quantity IS NULL"), 0, 0, nil},
		{"vehicles", count("vehicles", ""), 3, 4, s.vehicles},
		{"vehicles in maintenance", count("vehicles", "status = ?", vehicles.StatusMaintenance), 1, 1, nil},
		{"available vehicles", count("vehicles", "status = ?", vehicles.StatusAvailable), 2, 3, s.availableVehicles},
		{"trucks without interior size", count("vehicles", "interior_length_inches IS NULL OR max_payload_lbs IS NULL"), 0, 0, nil},
		{"clients", count("clients", ""), 5, 5, s.clients},
		{"crew", count("crew_members", ""), 6, 6, s.crew},
		{"crew without role", count("crew_members", "role IS NULL"), 0, 0, nil},
		{"events", count("events", ""), 5, 5, s.events},
		{"upcoming events", count("events", "end_date > now()"), 4, 4, nil},
		{"first event confirmed and upcoming", count("events", "id = ? AND status = 'confirmed' AND start_date > now()", s.events[0]), 1, 1, nil},
		{"distinct event statuses", distinct(t, db, org.ID, "events", "status"), 5, 5, nil},
	}
	for _, tt := range tests {
		if tt.got < tt.min || tt.got > tt.max {
			t.Errorf("%s: %d, want %d..%d", tt.what, tt.got, tt.min, tt.max)
		}
		if tt.ids != nil && len(tt.ids) != tt.got {
			t.Errorf("%s: %d ids recorded for %d rows", tt.what, len(tt.ids), tt.got)
		}
	}
	hex := regexp.MustCompile(`^#[0-9A-F]{6}$`)
	for _, id := range s.categories {
		c, err := equipment.GetCategory(ctx, db, org.OrgID(), id)
		if err != nil || c.Color == nil || !hex.MatchString(*c.Color) {
			t.Errorf("category %v: color %v (%v)", id, c, err)
		}
	}
	for _, id := range s.events {
		if _, err := events.Get(ctx, db, org.OrgID(), id); err != nil {
			t.Errorf("event %s: %v", id, err)
		}
	}
	for _, id := range s.availableVehicles {
		if err := vehicles.Assignable(ctx, db, org.OrgID(), id); err != nil {
			t.Errorf("available vehicle %s is not assignable: %v", id, err)
		}
	}
}

func distinct(t *testing.T, db bun.IDB, org uuid.UUID, table, col string) int {
	t.Helper()
	var n int
	err := db.NewSelect().Table(table).ColumnExpr("count(DISTINCT ?)", bun.Ident(col)).
		Where("organization_id = ?", org).Scan(context.Background(), &n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSeedTwice: seeding is repeatable, and two organizations seeded with the
// same catalogue (category names are unique per organization) do not clash.
func TestSeedTwice(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	for _, name := range []string{"one", "two"} {
		org, err := tenancy.CreateOrganization(ctx, db, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := Seed(ctx, db, tenancy.Tenant{Org: org.OrgID()}); err != nil {
			t.Fatalf("seed %s: %v", name, err)
		}
	}
}

// TestSerialsAreWellFormed checks every seeded asset tag has a prefix of
// one to three capitals and five digits: a lower-case brand such as
// "d&b audiotechnik" once gave "-10491".
func TestSerialsAreWellFormed(t *testing.T) {
	tag := regexp.MustCompile(`^[A-Z]{1,3}-[0-9]{5}$`)
	for i, it := range catalogueItems {
		if s := serial(it.brand, i); !tag.MatchString(s) {
			t.Errorf("%s (%s): serial %q is malformed", it.name, it.brand, s)
		}
	}
	for _, tt := range []struct{ brand, want string }{
		{"L-Acoustics", "LA-10417"},
		{"d&b audiotechnik", "DA-10417"},
		{"", "EQ-10417"},
	} {
		if got := serial(tt.brand, 0); got != tt.want {
			t.Errorf("serial(%q) = %q, want %q", tt.brand, got, tt.want)
		}
	}
}

package stock

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestReadsAreTheOrganizationsOwn: each read of stock answers of org's own
// equipment records and nothing else, whatever ids it is handed. The
// availability handlers answer 404 for another organization's equipment
// before they get here, but these functions state the filter themselves
// ("of each of org's equipment records"), so a caller that passes ids it
// has not checked (a batch that skips the missing ones, say) must still
// learn nothing of another organization's holds or overdue reservations
// (docs/architecture.md, "Tenant isolation is structural";
// docs/availability.md, "Overdue returns").
func TestReadsAreTheOrganizationsOwn(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	may := func(d int) time.Time { return time.Date(2026, 5, d, 8, 0, 0, 0, time.UTC) }
	// A's hazer: 2 units checked out in April and never returned (overdue,
	// May lies before the test's now), 1 held over the window.
	eq := f.Insert(t, "equipment", f.A, map[string]any{"name": "Hazer", "stock_quantity": 5})
	f.Insert(t, "equipment_reservations", f.A, map[string]any{"equipment_id": eq, "start_date": may(1).AddDate(0, -1, 0),
		"end_date": may(1), "quantity": 2, "reservation_status": StatusCheckedOut})
	f.Insert(t, "equipment_reservations", f.A, map[string]any{"equipment_id": eq, "start_date": may(10), "end_date": may(12), "quantity": 1})
	w := Window{Start: may(10), End: may(12)}
	ids := []uuid.UUID{eq}

	reads := []struct {
		name string
		// found is how many of eq's figures the read returns for org.
		found func(org tenancy.OrganizationID) (int, error)
	}{
		{"OverdueOf", func(org tenancy.OrganizationID) (int, error) {
			o, err := OverdueOf(ctx, f.DB, org, ids, w, uuid.Nil)
			return len(o), err
		}},
		{"Answer", func(org tenancy.OrganizationID) (int, error) {
			p, o, err := Answer(ctx, f.DB, org, ids, w, 10)
			return len(p) + len(o), err
		}},
		{"Availability", func(org tenancy.OrganizationID) (int, error) {
			p, err := Availability(ctx, f.DB, org, ids, w, 10)
			return len(p), err
		}},
		{"Holds", func(org tenancy.OrganizationID) (int, error) {
			h, err := Holds(ctx, f.DB, org, eq, w, uuid.Nil)
			return len(h), err
		}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			// A's own read finds them: the fixture is one the read sees.
			if n, err := r.found(f.A); err != nil || n == 0 {
				t.Fatalf("A's own equipment: %d found (%v), want its figures", n, err)
			}
			if n, err := r.found(f.B); err != nil || n != 0 {
				t.Fatalf("B with A's equipment id: %d found (%v), want nothing of A's", n, err)
			}
		})
	}
}

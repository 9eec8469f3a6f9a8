package reservations_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestListFiltersHaveTheirIndexes: a page of the reservation list filtered
// by vehicle or by status is read through an index in the list's order
// (organization, filter, created_at, id), so a filter that matches little
// costs what the page returns. Before the indexes, each such page scanned
// the organization's reservations: 0.3–0.4 s at 151,000 of them.
func TestListFiltersHaveTheirIndexes(t *testing.T) {
	db := pgtest.Open(t)
	const page = `SELECT * FROM equipment_reservations AS r
		WHERE r.organization_id = '00000000-0000-0000-0000-000000000001' AND %s
		ORDER BY r.created_at, r.id LIMIT 101`
	for _, c := range []struct{ filter, index string }{
		{"r.vehicle_id = '00000000-0000-0000-0000-000000000002'", "equipment_reservations_vehicle_page_idx"},
		{"r.reservation_status = 'returned'", "equipment_reservations_status_page_idx"},
	} {
		plan := pgtest.PlanWithoutSeqScans(t, db, strings.Replace(page, "%s", c.filter, 1))
		if !strings.Contains(plan, c.index) || strings.Contains(plan, "Sort") {
			t.Errorf("%s: the page is not read through %s in order:\n%s", c.filter, c.index, plan)
		}
	}
}

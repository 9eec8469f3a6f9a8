package demo

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestASeededOrganizationIsDeleted: an organization holding the demo data
// (quotes and invoices whose lines name several equipment records, as the
// operator's seeded sandboxes do) is deleted whole, records no change, and
// leaves another organization's data alone. The triggers of migration
// 20261204150000 failed such a deletion on a foreign key check, so the
// operator's cleanup of a seeded sandbox retried forever.
func TestASeededOrganizationIsDeleted(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	var orgs []*tenancy.Organization
	for _, name := range []string{"Doomed", "Kept"} {
		org, err := tenancy.CreateOrganization(ctx, db, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := Seed(ctx, db, tenancy.Tenant{Org: org.OrgID(), Demo: true}); err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, org)
	}
	doomed, kept := orgs[0].ID, orgs[1].ID
	count := func(table string, org any) int {
		n, err := db.NewSelect().TableExpr(table).Where("organization_id = ?", org).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	keptBefore := count("changes", kept)
	if count("quote_line_items", doomed) < 2 {
		t.Fatal("the demo data has no quote lines to delete")
	}
	if err := tenancy.DeleteOrganization(ctx, db, doomed); err != nil {
		t.Fatalf("delete the seeded organization: %v", err)
	}
	for _, table := range []string{"equipment", "quotes", "quote_line_items", "invoices", "invoice_line_items", "changes"} {
		if n := count(table, doomed); n != 0 {
			t.Errorf("%s: %d rows of the deleted organization left", table, n)
		}
	}
	if n := count("changes", kept); n != keptBefore || count("quotes", kept) == 0 {
		t.Errorf("the other organization's feed went from %d to %d changes", keptBefore, n)
	}
}

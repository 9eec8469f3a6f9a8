package clients

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestSearchPlanFollowsTheTerm: at a large organization a search for a
// common term walks the organization's page index and stops at the page,
// and one for a rare term does not (it would walk all the organization's
// clients): it goes through the trigram index, or, in this test's table of
// one organization, scans it. The plan is
// PostgreSQL's choice from its statistics, read here for the statement the
// search sends, with its values (the list sends it planned for them on
// every call, storage.WherePlanned). A second LIKE in the condition made
// the planner take every term for a rare one: a common one then fetched and
// sorted all its matches.
func TestSearchPlanFollowsTheTerm(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org := uuid.New()
	if _, err := db.ExecContext(ctx, `INSERT INTO organizations (id, name) VALUES (?, 'Big')`, org); err != nil {
		t.Fatal(err)
	}
	// One client in eight is a "Lumen"; one has the only booking777@ email.
	if _, err := db.ExecContext(ctx, `INSERT INTO clients (organization_id, name, email)
		SELECT ?, CASE WHEN i % 8 = 0 THEN 'Lumen Stage ' ELSE 'Acme Audio ' END || i,
		       CASE WHEN i = 777 THEN 'booking777@example.com' ELSE 'office' || i || '@example.com' END
		FROM generate_series(1, 20000) AS i`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `ANALYZE clients`); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		term string
		walk bool // walks clients_page_idx
	}{
		{"lumen", true},
		{"booking777@", false},
	} {
		c := searchCond(tt.term)
		q := db.NewSelect().Model((*Client)(nil)).Where("?TableAlias.organization_id = ?", org).
			Where(c.Expr, c.Args...).OrderExpr("?TableAlias.created_at ASC, ?TableAlias.id ASC").Limit(26)
		var lines []string
		if err := db.NewRaw("EXPLAIN "+q.String()).Scan(ctx, &lines); err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if walks := strings.Contains(plan, "clients_page_idx"); walks != tt.walk {
			t.Errorf("search %q walks the page index: %v, want %v:\n%s", tt.term, walks, tt.walk, plan)
		}
		var n int
		if err := db.NewSelect().Model((*Client)(nil)).Where("?TableAlias.organization_id = ?", org).
			Where(c.Expr, c.Args...).ColumnExpr("count(*)").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"lumen": 2500, "booking777@": 1}[tt.term]; n != want {
			t.Errorf("search %q matches %d clients, want %d", tt.term, n, want)
		}
	}
}

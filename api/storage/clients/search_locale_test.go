package clients

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestSearchUnderTheCLocale: on a database whose LC_CTYPE is C, where
// PostgreSQL's lower() changes ASCII letters only, a client is found by its
// name as written and in any ASCII case; the term is lowered as the column
// is. Lowered in Go, "CAFÉ" became "café" while the column's lower() kept
// "cafÉ", and the client's own name found nothing.
func TestSearchUnderTheCLocale(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenCLocale(t)
	org := uuid.New()
	if _, err := db.ExecContext(ctx, `INSERT INTO organizations (id, name) VALUES (?, 'Org')`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO clients (organization_id, name, email) VALUES (?, 'CAFÉ ROUGE', 'BOOKINGS@CAFÉ.EXAMPLE')`, org); err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"CAFÉ ROUGE", "CAFÉ", "cafÉ", "É", "rouge", "bookings@CAFÉ"} {
		c := searchCond(term)
		var n int
		if err := db.NewSelect().Model((*Client)(nil)).Where("?TableAlias.organization_id = ?", org).
			Where(c.Expr, c.Args...).ColumnExpr("count(*)").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("search %q under LC_CTYPE=C finds %d clients, want 1", term, n)
		}
	}
}

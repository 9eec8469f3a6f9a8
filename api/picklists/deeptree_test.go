package picklists_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestADeepTreeCannotBeMadeALoop: an item cannot be put inside an item of
// its own subtree however deep that subtree is (the check stopped at
// 10,000 levels, and a root given its deepest descendant as parent made a
// loop).
func TestADeepTreeCannotBeMadeALoop(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	list := a.Post("/api/v2/pick_lists", map[string]any{"name": "Deep"}).Data()["id"].(string)
	const depth = 10_003
	// A chain root ← 1 ← 2 ← … ← depth-1, made in SQL (through the API it
	// would take the rate limit's many minutes).
	// Ids from md5 of the list's id and the level, so that each item names
	// its parent in the one statement (the foreign key is checked at its end).
	ctx := context.Background()
	if _, err := env.Svc.DB.ExecContext(ctx, `INSERT INTO pick_list_items (id, organization_id, pick_list_id, custom_description, parent_item_id)
		SELECT md5(?::text || g)::uuid, ?, ?, 'level ' || g, CASE WHEN g > 0 THEN md5(?::text || (g - 1))::uuid END
		FROM generate_series(0, ? - 1) g`, list, a.ID, list, list, depth); err != nil {
		t.Fatal(err)
	}
	// As autovacuum would, so that the walk is planned on the index.
	if _, err := env.Svc.DB.ExecContext(ctx, "ANALYZE pick_list_items"); err != nil {
		t.Fatal(err)
	}
	var root, deepest string
	if err := env.Svc.DB.NewRaw(`SELECT md5(?::text || 0)::uuid::text, md5(?::text || (? - 1))::uuid::text`,
		list, list, depth).Scan(ctx, &root, &deepest); err != nil {
		t.Fatal(err)
	}
	res := a.Patch("/api/v2/pick_list_items/"+root, map[string]any{"parent_item_id": deepest})
	if res.Status != 422 || res.ErrorCode() != "validation_error" {
		t.Fatalf("the root put inside its own descendant %d levels down: %d %s, want 422", depth-1, res.Status, res.Body)
	}
}

package changes_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	feed "github.com/eventapi/eventapi/api/storage/changes"
)

// TestRetention: a change older than 30 days is neither listed nor kept by
// the purge; a recent one is both.
func TestRetention(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	old := create(t, a, "/api/v2/clients", map[string]any{"name": "Old"})
	recent := create(t, a, "/api/v2/clients", map[string]any{"name": "Recent"})
	settle(t, a, "", holds(recent["id"]))
	ctx := context.Background()
	if _, err := env.Svc.DB.NewRaw(`UPDATE changes SET created_at = created_at - interval '30 days 1 minute'
		WHERE organization_id = ? AND object_id = ?`, a.ID, old["id"]).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	listed, _ := follow(t, a, "", "")
	if len(listed) != 1 || listed[0]["object_id"] != recent["id"] {
		t.Fatalf("feed lists %v, want only the recent change", types(listed))
	}
	n, err := feed.Purge(ctx, env.Svc.DB)
	if err != nil || n != 1 {
		t.Fatalf("purge: %d, %v; want 1 deleted", n, err)
	}
	var left int
	if err := env.Svc.DB.NewRaw("SELECT count(*) FROM changes WHERE organization_id = ?", a.ID).Scan(ctx, &left); err != nil || left != 1 {
		t.Fatalf("%d changes left (%v), want 1", left, err)
	}
}

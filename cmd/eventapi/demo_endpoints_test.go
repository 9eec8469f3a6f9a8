package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// TestDemoNamesThePreviousKeysEndpoints: a demo run that revokes the
// previous run's keys names the webhook endpoints they registered (the live
// key's in the organization, the test key's in its sandbox), as keys revoke
// does, since they outlive the keys, and none of earlier keys'; in JSON
// and in text.
func TestDemoNamesThePreviousKeysEndpoints(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("EVENTAPI_DATABASE_URL", dbURL)
	t.Setenv("EVENTAPI_REDIS_URL", "")
	if _, err := runCLI(t, "migrate", "up"); err != nil {
		t.Fatal(err)
	}
	first, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	sealer, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	org := tenancy.OrganizationID{UUID: uuid.MustParse(first["organization_id"].(string))}
	sandbox := tenancy.OrganizationID{UUID: uuid.MustParse(first["sandbox_organization_id"].(string))}
	keys, err := tenancy.ListKeys(ctx, db, org.UUID)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]uuid.UUID{}
	for _, k := range keys {
		byName[k.Name] = k.ID
	}
	want := []string{"https://planner.example/live", "https://planner.example/sandbox"}
	for i, at := range []struct {
		key string
		org tenancy.OrganizationID
	}{{"demo live key", org}, {"demo test key", sandbox}} {
		if _, err := webhooks.CreateEndpoint(ctx, db, tenancy.Tenant{Org: at.org}, sealer,
			webhooks.NewEndpoint{URL: want[i], EnabledEvents: []string{"*"}, CreatedByKeyID: byName[at.key]}); err != nil {
			t.Fatal(err)
		}
	}

	second, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range second["previous_keys_webhook_endpoints"].([]any) {
		got = append(got, e.(map[string]any)["url"].(string))
	}
	slices.Sort(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the second run names endpoints %q, want %q", got, want)
	}

	// The second run's live key registers one; the third run, in text,
	// names it and none of the first run's keys' endpoints.
	keys, err = tenancy.ListKeys(ctx, db, org.UUID)
	if err != nil {
		t.Fatal(err)
	}
	var live uuid.UUID
	for _, k := range keys {
		if k.Name == "demo live key" && k.RevokedAt == nil {
			live = k.ID
		}
	}
	const third = "https://planner.example/third"
	if _, err := webhooks.CreateEndpoint(ctx, db, tenancy.Tenant{Org: org}, sealer,
		webhooks.NewEndpoint{URL: third, EnabledEvents: []string{"*"}, CreatedByKeyID: live}); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := run(ctx, []string{"demo"}, &text, io.Discard); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !strings.Contains(s, "registered 1 webhook endpoint") || !strings.Contains(s, third) || strings.Contains(s, want[0]) {
		t.Fatalf("the third run says:\n%s", s)
	}
}

package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestLastUsedCountsOnlySuccessfulRequests: a key's last_used_at is "the
// most recent successful request" (a status below 400). A key that only
// got refusals (403 for a scope, 422 for a bad parameter, 404) keeps none.
func TestLastUsedCountsOnlySuccessfulRequests(t *testing.T) {
	env := apitest.New(t)
	ok := env.NewOrgWithKey("Used", apikey.Live, tenancy.EventsRead)
	refused := ok.WithKey(apikey.Live, tenancy.EventsRead)
	v1Refused := ok.WithKey(apikey.Legacy, tenancy.CrewRead)

	if res := ok.Get("/api/v2/events"); res.Status != 200 {
		t.Fatalf("ok: %d %s", res.Status, res.Body)
	}
	for _, c := range []struct {
		org  *apitest.Org
		path string
		want int
	}{
		{refused, "/api/v2/clients", 403},
		{refused, "/api/v2/events?limit=0", 422},
		{refused, "/api/v2/events/00000000-0000-4000-8000-000000000000", 404},
		{v1Refused, "/api/v1/jobs", 403},
		{v1Refused, "/api/v1/crew?page=0", 400},
	} {
		if res := c.org.Get(c.path); res.Status != c.want {
			t.Fatalf("%s: %d, want %d: %s", c.path, res.Status, c.want, res.Body)
		}
	}
	env.Svc.Auth.Close() // writes the pending last_used_at

	for _, c := range []struct {
		name, key string
		used      bool
	}{{"ok", ok.Key, true}, {"refused", refused.Key, false}, {"v1 refused", v1Refused.Key, false}} {
		h := apikey.Hash(c.key)
		var last *time.Time
		if err := env.Svc.DB.NewSelect().Table("api_keys").Column("last_used_at").Where("hash = ?", h[:]).
			Scan(context.Background(), &last); err != nil {
			t.Fatal(err)
		}
		if (last != nil) != c.used {
			t.Errorf("%s key: last_used_at %v, want set %v", c.name, last, c.used)
		}
	}
}

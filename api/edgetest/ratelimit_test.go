package edgetest

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestRateLimitHeadersOnEveryV2Response(t *testing.T) {
	env, _ := newApp(t)
	a := env.NewOrg("A")
	created := a.Post("/api/v2/clients", map[string]any{"name": "Headers Inc"})
	id, _ := created.Data()["id"].(string)
	tests := []struct {
		name    string
		send    func() *apitest.Response
		status  int
		headers bool
	}{
		{"201 created", func() *apitest.Response { return created }, 201, true},
		{"200 list", func() *apitest.Response { return a.Get("/api/v2/clients") }, 200, true},
		{"200 detail", func() *apitest.Response { return a.Get("/api/v2/clients/" + id) }, 200, true},
		{"404 foreign or missing id", func() *apitest.Response { return a.Get("/api/v2/clients/" + missingID) }, 404, true},
		{"422 validation", func() *apitest.Response { return a.Post("/api/v2/clients", map[string]any{}) }, 422, true},
		{"400 malformed json", func() *apitest.Response { return a.Post("/api/v2/clients", "{") }, 400, true},
		{"405 method", func() *apitest.Response { return a.Do("PUT", "/api/v2/clients", nil) }, 405, true},
		{"401 before the limiter", func() *apitest.Response {
			return env.Send(apitest.Request{Method: "GET", Path: "/api/v2/clients", Key: "svc_live_nope"})
		}, 401, false},
	}
	last := 1000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.send()
			if r.Status != tt.status {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			h := r.Header
			if !tt.headers {
				if h.Get("X-RateLimit-Limit") != "" {
					t.Fatal("a request refused by auth was counted")
				}
				return
			}
			rem, err := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
			if h.Get("X-RateLimit-Limit") != "1000" || err != nil || rem >= last || rem < 0 {
				t.Fatalf("limit %q remaining %q (previous %d)", h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), last)
			}
			last = rem
			reset, err := time.Parse(time.RFC3339, h.Get("X-RateLimit-Reset"))
			if err != nil || reset.Location() != time.UTC || time.Until(reset) > time.Minute+time.Second {
				t.Fatalf("X-RateLimit-Reset %q", h.Get("X-RateLimit-Reset"))
			}
		})
	}
}

// missingID is a well-formed id no record has.
const missingID = "7a0c4c62-6f7e-4d7e-9d53-3b0b8f3f4c11"

// The organization's override (orgs update --rate-limit) sets its limit; a
// 429 carries Retry-After; GET /health reports the bucket; another
// organization's bucket is separate.
func TestOrganizationOverrideAndHealth(t *testing.T) {
	env, _ := newApp(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	three := 3
	if _, err := tenancy.UpdateOrganization(context.Background(), env.Svc.DB, a.ID, tenancy.OrganizationUpdate{RateLimit: &three}); err != nil {
		t.Fatal(err)
	}
	h := a.Get("/api/v2/health")
	rl, _ := h.Data()["rate_limit"].(map[string]any)
	if h.Status != 200 || rl["limit"] != float64(3) || rl["remaining"] != float64(2) || rl["reset"] != h.Header.Get("X-RateLimit-Reset") {
		t.Fatalf("health: %s, headers %v", h.Body, h.Header)
	}
	a.Get("/api/v2/clients")
	a.Get("/api/v2/clients")
	r := a.Get("/api/v2/clients")
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if r.Status != http.StatusTooManyRequests || r.ErrorCode() != "rate_limited" || err != nil || retry < 1 || retry > 60 ||
		r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("X-RateLimit-Limit") != "3" {
		t.Fatalf("4th request: %d %s %v", r.Status, r.Body, r.Header)
	}
	if r := b.Get("/api/v2/health"); r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "1000" {
		t.Fatalf("org B: %d %v", r.Status, r.Header)
	}
}

// v1 buckets per key: two keys of one organization each get the v1 limit,
// and v1 answers use the same headers and the v1 error envelope.
func TestV1LimitsPerKey(t *testing.T) {
	env, _ := newApp(t, apitest.WithConfig(func(c *config.Config) { c.V1RateLimit = 2 }))
	a := env.NewOrgWithKey("A", apikey.Legacy, tenancy.AllScopes...)
	second := env.NewKey(a.ID, apikey.Live, tenancy.AllScopes...)
	for _, key := range []string{a.Key, second} {
		for i := 0; i < 2; i++ {
			r := viaApp(t, env.Svc.App, "GET", "/api/v1/equipment", key, "")
			if r.Status >= 500 || r.Status == http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Limit") != "2" ||
				r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(1-i) {
				t.Fatalf("key request %d: %d %s %v", i, r.Status, r.Body, r.Header)
			}
		}
		r := viaApp(t, env.Svc.App, "GET", "/api/v1/equipment", key, "")
		if r.Status != http.StatusTooManyRequests || r.Code() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("over the v1 limit: %d %s", r.Status, r.Body)
		}
	}
}

package isolation_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/storage/webhooks"
)

// Webhook endpoints and their deliveries. The endpoints point at a public
// literal address (the suite runs with production settings); a delivery is
// made by a client created after its endpoint.
func init() {
	endpoint := func(events ...string) map[string]any {
		return map[string]any{"url": "https://8.8.8.8/isolation", "enabled_events": events}
	}
	register(map[string]Fixture{
		"webhook_endpoints": {Table: "webhook_endpoints", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			t.Helper()
			return s.Create(t, o, "/api/v2/webhook_endpoints", endpoint("quote.approved"))
		}},
		"webhook_deliveries": {Table: "webhook_deliveries", Stamp: "created_at", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			t.Helper()
			ep := s.Create(t, o, "/api/v2/webhook_endpoints", endpoint("client.created"))
			s.Create(t, o, "/api/v2/clients", map[string]any{"name": "Webhook fixture"})
			// The fan-out queues the delivery once the change passes the
			// visibility horizon; run passes until it has. (The endpoint
			// may also get earlier clients' changes: another test's open
			// transaction can hold the horizon back; docs/webhooks.md.)
			deadline := time.Now().Add(time.Minute)
			for {
				if _, err := webhooks.FanOut(t.Context(), s.Env.Svc.DB, 100); err != nil {
					t.Fatal(err)
				}
				if l := o.Get("/api/v2/webhook_endpoints/" + ep + "/deliveries").List(); len(l) > 0 {
					return ep + "/" + l[0]["id"].(string)
				}
				if time.Now().After(deadline) {
					t.Fatal("webhook delivery fixture: the client's change was never fanned out")
				}
				time.Sleep(20 * time.Millisecond)
			}
		}},
	}, map[string]Route{
		"GET /api/v2/webhook_endpoints": {Fixture: "webhook_endpoints"},
		"POST /api/v2/webhook_endpoints": {Fixture: "webhook_endpoints", Body: func(testing.TB, *Suite, *apitest.Org) map[string]any {
			return endpoint("*")
		}},
		"GET /api/v2/webhook_endpoints/:id": {Fixture: "webhook_endpoints"},
		"PATCH /api/v2/webhook_endpoints/:id": {Fixture: "webhook_endpoints", Body: func(testing.TB, *Suite, *apitest.Org) map[string]any {
			return map[string]any{"description": "renamed"}
		}},
		"DELETE /api/v2/webhook_endpoints/:id":                             {Fixture: "webhook_endpoints"},
		"GET /api/v2/webhook_endpoints/:id/deliveries":                     {Fixture: "webhook_endpoints"},
		"POST /api/v2/webhook_endpoints/:id/deliveries/:delivery_id/retry": {Fixture: "webhook_deliveries", Check: checkRetry},
	})
}

// checkRetry: B's retry of A's delivery, through A's endpoint or its own,
// is 404 and leaves the delivery as it was; A's own retry is served.
func checkRetry(t *testing.T, s *Suite) {
	pair := s.Make(t, "webhook_deliveries", s.A)
	epA, delivery := pair[:36], pair[37:]
	epB := s.Create(t, s.B, "/api/v2/webhook_endpoints", map[string]any{"url": "https://8.8.8.8/b", "enabled_events": []string{"*"}})
	var before int
	count := func() int {
		var n int
		if err := s.Env.Svc.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE organization_id = ? AND id = ? AND next_attempt_at IS NOT DISTINCT FROM (SELECT next_attempt_at FROM webhook_deliveries WHERE organization_id = ? AND id = ?)",
			s.A.ID, delivery, s.A.ID, delivery).Scan(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before = count()
	for _, ep := range []string{epA, epB} {
		res := s.B.Post("/api/v2/webhook_endpoints/"+ep+"/deliveries/"+delivery+"/retry", nil)
		if res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
			t.Errorf("B retries A's delivery via %s: %d %s, want 404", ep, res.Status, res.Body)
		}
	}
	if count() != before {
		t.Error("B's retry removed A's delivery")
	}
	if res := s.A.Post("/api/v2/webhook_endpoints/"+epA+"/deliveries/"+delivery+"/retry", nil); res.Status != 200 {
		t.Errorf("A retries its own delivery: %d %s", res.Status, res.Body)
	}
}

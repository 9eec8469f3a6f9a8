package isolation_test

import (
	"net/http"
	"strings"
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
		"DELETE /api/v2/webhook_endpoints/:id":         {Fixture: "webhook_endpoints"},
		"GET /api/v2/webhook_endpoints/:id/deliveries": {Fixture: "webhook_endpoints"},
		retryRoute: {Fixture: "webhook_deliveries", Params: deliveryParams, Check: checkRetry},
	})
}

const retryRoute = "POST /api/v2/webhook_endpoints/:id/deliveries/:delivery_id/retry"

// deliveryParams makes a delivery in o and returns the retry route's
// parameters: its endpoint's id and its own.
func deliveryParams(t testing.TB, s *Suite, o *apitest.Org) map[string]string {
	t.Helper()
	ep, delivery, _ := strings.Cut(s.Make(t, "webhook_deliveries", o), "/")
	return map[string]string{"id": ep, "delivery_id": delivery}
}

// checkRetry: B's retry of A's delivery through A's endpoint or its own,
// and of its own delivery through A's endpoint, is 404 exactly as with
// random ids in place of A's (checkNested) and leaves A's delivery in
// place; B's and A's own retries are served.
func checkRetry(t *testing.T, s *Suite) {
	method, route := splitKey(retryRoute)
	params := routes[retryRoute].Params
	a, b := params(t, s, s.A), params(t, s, s.B)
	// 1 while A's delivery exists (its next_attempt_at is not compared
	// with a value taken before: the webhook worker moves it on its own).
	state := func() int {
		var n int
		if err := s.Env.Svc.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE organization_id = ? AND id = ? AND next_attempt_at IS NOT DISTINCT FROM (SELECT next_attempt_at FROM webhook_deliveries WHERE organization_id = ? AND id = ?)",
			s.A.ID, a["delivery_id"], s.A.ID, a["delivery_id"]).Scan(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := state()
	s.checkNested(t, method, route, nil, a, b)
	if state() != before {
		t.Error("B's retry removed A's delivery")
	}
	if res := s.A.Post(fillParams(t, route, a), nil); res.Status != http.StatusOK {
		t.Errorf("A retries its own delivery: %d %s", res.Status, res.Body)
	}
}

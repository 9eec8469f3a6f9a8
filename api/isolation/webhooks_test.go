package isolation_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
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
			return ep + "/" + deliveriesAt(t, s, o, ep, 1)[0]
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
		"DELETE /api/v2/webhook_endpoints/:id": {Fixture: "webhook_endpoints"},
		deliveriesRoute:                        {Fixture: "webhook_endpoints", Check: checkDeliveries},
		retryRoute:                             {Fixture: "webhook_deliveries", Params: deliveryParams, Check: checkRetry},
		rotateRoute:                            {Fixture: "webhook_endpoints", Check: checkRotate},
	})
}

const (
	retryRoute      = "POST /api/v2/webhook_endpoints/:id/deliveries/:delivery_id/retry"
	deliveriesRoute = "GET /api/v2/webhook_endpoints/:id/deliveries"
	rotateRoute     = "POST /api/v2/webhook_endpoints/:id/rotate_secret"
)

// deliveriesAt creates n clients in o and returns the ids of the first n
// deliveries of its endpoint ep (which wants client.created), newest first.
// The fan-out queues a delivery once its change passes the visibility
// horizon; passes run until it has. (The endpoint may also get earlier
// clients' changes: another test's open transaction can hold the horizon
// back; docs/webhooks.md.)
func deliveriesAt(t testing.TB, s *Suite, o *apitest.Org, ep string, n int) []string {
	t.Helper()
	for range n {
		s.Create(t, o, "/api/v2/clients", map[string]any{"name": "Webhook fixture"})
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := webhooks.FanOut(t.Context(), s.Env.Svc.DB, 100); err != nil {
			t.Fatal(err)
		}
		if l := o.Get("/api/v2/webhook_endpoints/" + ep + "/deliveries").List(); len(l) >= n {
			ids := make([]string, n)
			for i := range ids {
				ids[i] = l[i]["id"].(string)
			}
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatal("webhook delivery fixture: the clients' changes were never fanned out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkDeliveries: the item checks of an endpoint (B is told of A's
// endpoint's deliveries exactly what of a random id's), and a cursor of
// A's deliveries is refused on B's endpoint and on another endpoint of A's:
// it pages the one list it came from.
func checkDeliveries(t *testing.T, s *Suite) {
	method, route := splitKey(deliveriesRoute)
	s.checkItem(t, method, route, routes[deliveriesRoute])
	make1 := func(o *apitest.Org) string {
		return s.Create(t, o, "/api/v2/webhook_endpoints", map[string]any{
			"url": "https://8.8.8.8/isolation", "enabled_events": []string{"client.created"}})
	}
	// Both endpoints exist before either organization writes, and B writes
	// first: A's endpoint is then due for the fan-out's pass over B's
	// changes too, which must skip them.
	mine, theirs := make1(s.A), make1(s.B)
	deliveriesAt(t, s, s.B, theirs, 2)
	deliveriesAt(t, s, s.A, mine, 2)
	// Each endpoint was told of its own organization's changes alone (the
	// suite runs for two organizations and for a sandbox and its parent).
	for _, c := range []struct {
		who string
		o   *apitest.Org
		ep  string
	}{{"A", s.A, mine}, {"B", s.B, theirs}} {
		// The deliveries first: a change delivered after the feed was read
		// would look foreign.
		delivered := c.o.Get(fill(route, c.ep) + "?limit=100").List()
		own := ownChanges(t, c.o, "client.created")
		for _, d := range delivered {
			if id, _ := d["change_id"].(string); !own[id] {
				t.Errorf("%s's endpoint got a delivery of change %s, which is not in %s's change feed", c.who, id, c.who)
			}
		}
	}
	other := s.Make(t, "webhook_endpoints", s.A)
	cursor := crudtest.Cursor(t, s.A, fill(route, mine))
	if r := s.A.Get(fill(route, mine) + "?limit=1&cursor=" + url.QueryEscape(cursor)); r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Fatalf("A pages its own deliveries with its cursor: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		who  string
		o    *apitest.Org
		path string
	}{{"B on its endpoint", s.B, fill(route, theirs)}, {"A on another endpoint", s.A, fill(route, other)}} {
		r := c.o.Get(c.path + "?cursor=" + url.QueryEscape(cursor))
		if r.Status != http.StatusUnprocessableEntity || !slices.Contains(crudtest.Fields(r), "cursor") {
			t.Errorf("%s with a cursor of A's deliveries: %d %s, want 422 on cursor", c.who, r.Status, r.Body)
		}
	}
}

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

// checkRotate: B's rotation of A's endpoint is 404 exactly as with a random
// id and leaves it as it was (its updated_at, which a rotation moves); A's
// own is served (checkItem, with the body {}). The route takes an empty
// body (the default grace period), which TestHostileInput's whole-body
// sweep requires every write to refuse, so the route is checked here and
// the sweep skips its bodies (Check without Body); this sweeps them
// instead: its one property with each hostile value, and each hostile
// whole body but the empty one, each answered below 500, within the
// document, and, when refused, with the endpoint unchanged.
func checkRotate(t *testing.T, s *Suite) {
	method, route := splitKey(rotateRoute)
	s.checkItem(t, method, route, routes[rotateRoute])
	h := &hostile{t: t, s: s, doc: s.contract, method: method, route: route, r: routes[rotateRoute]}
	id, path := h.target()
	u := h.snapshot(id)
	valid := map[string]any{"previous_secret_expires_in": 60}
	for _, v := range hostileValues {
		what := fmt.Sprintf("%s %s with previous_secret_expires_in = %s", method, route, clip(v))
		u.after(what, h.check(what, path, h.with(valid, "previous_secret_expires_in", json.RawMessage(v))))
	}
	for _, b := range hostileBodies {
		if b.body == "" {
			continue // no body: the default grace period
		}
		what := fmt.Sprintf("%s %s with the body %s", method, route, clip(b.body))
		res := h.check(what, path, b.body)
		if res.Status < 400 {
			t.Errorf("%s: %d, want a refusal", what, res.Status)
		}
		u.after(what, res)
	}
}

// ownChanges returns the ids of o's changes of type typ, its whole feed
// followed to its end.
func ownChanges(t testing.TB, o *apitest.Org, typ string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	path := "/api/v2/changes?limit=100&type=" + typ
	for q := path; ; {
		r := o.Get(q)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", q, r.Status, r.Body)
		}
		for _, c := range r.List() {
			ids[c["id"].(string)] = true
		}
		pg, _ := r.JSON()["pagination"].(map[string]any)
		if more, _ := pg["has_more"].(bool); !more {
			return ids
		}
		q = path + "&cursor=" + url.QueryEscape(pg["next_cursor"].(string))
	}
}

package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestGiveUpDisablesEndpoint: a delivery that keeps failing past the retry
// window fails and disables its endpoint; nothing is queued for a disabled
// endpoint and a retry is refused; re-enabling clears failing_since, and a
// retry then delivers the failed change.
func TestGiveUpDisablesEndpoint(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.RetryFor = 300 * time.Millisecond })
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	rcv.Close()
	id := createClient(t, a, "Given Up Ltd")
	waitFor(t, "the delivery to fail for good", func() bool {
		ds := deliveries(t, a, ep)
		return len(ds) == 1 && ds[0]["status"] == "failed"
	})
	d := deliveries(t, a, ep)[0]
	if d["next_attempt_at"] != nil || d["attempt_count"].(float64) < 2 {
		t.Errorf("failed delivery %v", d)
	}
	e := a.Get(endpoints + "/" + ep).Data()
	if e["status"] != "disabled" || e["failing_since"] == nil {
		t.Fatalf("endpoint after giving up: %v", e)
	}
	during := createClient(t, a, "While Disabled")
	// The re-enable starts the endpoint at the feed's horizon, which a
	// transaction open anywhere on the server holds back: once the change
	// is in the feed the horizon is past it, and it is never delivered
	// (docs/webhooks.md, "New, disabled and re-enabled endpoints").
	waitFor(t, "the change made while disabled in the feed", func() bool { return inFeed(a, during) })
	if n := len(deliveries(t, a, ep)); n != 1 {
		t.Errorf("%d deliveries, want 1: nothing is queued for a disabled endpoint", n)
	}
	retry := endpoints + "/" + ep + "/deliveries/" + d["id"].(string) + "/retry"
	if r := a.Post(retry, nil); r.Status != 422 || r.ErrorCode() != "invalid_transition" {
		t.Errorf("retry on a disabled endpoint: %d %s", r.Status, r.Body)
	}
	// A delivery the endpoint does not have is not found, disabled or not.
	unknown := endpoints + "/" + ep + "/deliveries/00000000-0000-0000-0000-000000000000/retry"
	if r := a.Post(unknown, nil); r.Status != 404 || r.ErrorCode() != "not_found" {
		t.Errorf("retry of an unknown delivery on a disabled endpoint: %d %s", r.Status, r.Body)
	}
	r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"})
	if r.Status != 200 || r.Data()["failing_since"] != nil || r.Data()["status"] != "enabled" {
		t.Fatalf("re-enable: %d %s", r.Status, r.Body)
	}
	rcv.Open()
	// A retry takes no fields: a body it would ignore is refused, and the
	// delivery stays as it was.
	for _, bad := range []struct{ body, code string }{
		{`{`, "malformed_json"},
		{"{\"a\":\"\xff\"}", "malformed_json"},
		{`[1,2]`, "validation_error"},
		{`{"at":"now"}`, "validation_error"},
	} {
		if r := a.Post(retry, bad.body); r.Status/100 != 4 || r.ErrorCode() != bad.code {
			t.Errorf("retry with body %q: %d %s, want %s", bad.body, r.Status, r.Body, bad.code)
		}
	}
	if got := deliveries(t, a, ep)[0]; got["status"] != "failed" || got["next_attempt_at"] != nil {
		t.Errorf("a refused retry changed the delivery: %v", got)
	}
	r0 := a.Do(http.MethodPost, retry, nil, "Idempotency-Key", "retry-1")
	if r0.Status != 200 || r0.Data()["id"] != d["id"] {
		t.Fatalf("retry: %d %s", r0.Status, r0.Body)
	}
	// The same key with {} is the same request: its answer is replayed,
	// and the delivery is not made due twice.
	if r := a.Do(http.MethodPost, retry, map[string]any{}, "Idempotency-Key", "retry-1"); r.Status != 200 ||
		r.Header.Get("Idempotent-Replayed") != "true" || string(r.Body) != string(r0.Body) {
		t.Fatalf("the retry's key with {}: %d %q %s, want the replay of %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body, r0.Body)
	}
	waitFor(t, "the retried delivery", func() bool { return created(rcv)[id] == 1 })
	waitFor(t, "the delivery to succeed", func() bool { return deliveries(t, a, ep)[0]["status"] == "succeeded" })
	// A succeeded delivery may be redelivered too (an empty object is no
	// body).
	if r := a.Post(retry, map[string]any{}); r.Status != 200 {
		t.Fatalf("retry of a succeeded delivery: %d %s", r.Status, r.Body)
	}
	waitFor(t, "the redelivery", func() bool { return created(rcv)[id] == 2 })
}

// TestEndpointRegistration: the CRUD surface, the secret shown once, and
// every bad input a 422 naming the field (production settings: https and
// public addresses only).
func TestEndpointRegistration(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	// "*" covers every type: the types beside it are dropped.
	if r := a.Post(endpoints, map[string]any{"url": "https://8.8.4.4/hook", "enabled_events": []string{"client.created", "*", "quote.approved"}}); r.Status != 201 ||
		fmt.Sprint(r.Data()["enabled_events"]) != "[*]" {
		t.Errorf("create with * among types: %d %s", r.Status, r.Body)
	} else if r := a.Delete(endpoints + "/" + r.Data()["id"].(string)); r.Status != 204 {
		t.Errorf("delete: %d %s", r.Status, r.Body)
	}
	res := a.Post(endpoints, map[string]any{"url": "https://8.8.8.8/hook", "enabled_events": []string{"quote.approved", "quote.approved", "event.deleted"}})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	ep := res.Data()
	id := ep["id"].(string)
	if ev := ep["enabled_events"].([]any); len(ev) != 2 || ep["status"] != "enabled" || ep["description"] != nil {
		t.Errorf("created %v", ep)
	}
	got := a.Get(endpoints + "/" + id)
	// previous_secret_expires_at is shown, never a secret.
	if got.Status != 200 || strings.Contains(string(got.Body), `"secret"`) || strings.Contains(string(got.Body), "whsec_") {
		t.Errorf("GET shows the secret: %s", got.Body)
	}
	var stored []byte
	if err := env.Svc.DB.NewRaw("SELECT secret FROM webhook_endpoints WHERE organization_id = ? AND id = ?", a.ID, id).Scan(t.Context(), &stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored), "whsec_") || strings.Contains(string(stored), ep["secret"].(string)[6:]) {
		t.Error("the secret is stored in the clear")
	}
	if l := a.Get(endpoints).List(); len(l) != 1 || l[0]["id"] != id || l[0]["secret"] != nil {
		t.Errorf("list %v", l)
	}
	if r := a.Patch(endpoints+"/"+id, map[string]any{"description": "ops", "enabled_events": []string{"*"}, "status": "disabled"}); r.Status != 200 ||
		r.Data()["description"] != "ops" || r.Data()["status"] != "disabled" {
		t.Errorf("patch: %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"http", map[string]any{"url": "http://8.8.8.8/hook", "enabled_events": []string{"*"}}, "url"},
		{"loopback", map[string]any{"url": "https://127.0.0.1/hook", "enabled_events": []string{"*"}}, "url"},
		{"localhost", map[string]any{"url": "https://localhost:8443/hook", "enabled_events": []string{"*"}}, "url"},
		{"metadata", map[string]any{"url": "https://169.254.169.254/latest", "enabled_events": []string{"*"}}, "url"},
		{"private", map[string]any{"url": "https://10.0.0.8/", "enabled_events": []string{"*"}}, "url"},
		{"cgnat", map[string]any{"url": "https://100.64.0.1/", "enabled_events": []string{"*"}}, "url"},
		{"ula", map[string]any{"url": "https://[fd00::1]/", "enabled_events": []string{"*"}}, "url"},
		{"not a url", map[string]any{"url": "hook", "enabled_events": []string{"*"}}, "url"},
		{"no url", map[string]any{"enabled_events": []string{"*"}}, "url"},
		{"url type", map[string]any{"url": 5, "enabled_events": []string{"*"}}, "url"},
		{"unknown type", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"event.exploded"}}, "enabled_events[0]"},
		{"unknown second type", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"*", "event.exploded"}}, "enabled_events[1]"},
		{"wrong element type", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []any{"*", 5}}, "enabled_events[1]"},
		{"empty events", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{}}, "enabled_events"},
		{"no events", map[string]any{"url": "https://8.8.8.8/"}, "enabled_events"},
		{"events type", map[string]any{"url": "https://8.8.8.8/", "enabled_events": "*"}, "enabled_events"},
		{"status on create", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"*"}, "status": "disabled"}, "status"},
		{"secret", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"*"}, "secret": "whsec_AAAA"}, "secret"},
		{"unknown field", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"*"}, "colour": "red"}, "colour"},
		{"long description", map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"*"}, "description": strings.Repeat("x", 501)}, "description"},
	} {
		r := a.Post(endpoints, tc.body)
		if r.Status != 422 || r.ErrorCode() != "validation_error" || !slices.Contains(crudtest.Fields(r), tc.field) {
			t.Errorf("%s: %d %s, want 422 naming %s", tc.name, r.Status, r.Body, tc.field)
		}
	}
	for _, body := range []map[string]any{{"status": "paused"}, {"url": "https://127.0.0.1/"}, {"enabled_events": []string{"nope"}}} {
		if r := a.Patch(endpoints+"/"+id, body); r.Status != 422 || r.ErrorCode() != "validation_error" {
			t.Errorf("patch %v: %d %s", body, r.Status, r.Body)
		}
	}
	reader := &apitest.Org{}
	*reader = *a
	reader.Key = env.NewKey(a.ID, apikey.Live, tenancy.WebhooksRead)
	if r := reader.Get(endpoints + "/" + id); r.Status != 200 {
		t.Errorf("read scope GET: %d", r.Status)
	}
	if r := reader.Post(endpoints, map[string]any{"url": "https://8.8.8.8/", "enabled_events": []string{"*"}}); r.Status != http.StatusForbidden {
		t.Errorf("read scope POST: %d %s", r.Status, r.Body)
	}
	other := &apitest.Org{}
	*other = *a
	other.Key = env.NewKey(a.ID, apikey.Live, tenancy.ClientsRead)
	if r := other.Get(endpoints); r.Status != http.StatusForbidden {
		t.Errorf("clients:read lists endpoints: %d", r.Status)
	}
	if r := a.Delete(endpoints + "/" + id); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := a.Get(endpoints + "/" + id); r.Status != 404 {
		t.Errorf("GET after delete: %d", r.Status)
	}
	if r := a.Get(endpoints + "/not-a-uuid/deliveries"); r.Status != 404 {
		t.Errorf("deliveries of a malformed id: %d", r.Status)
	}
}

// TestOrganizationsAreIsolated: B's endpoint never receives A's changes,
// and B's key gets 404 on A's endpoint and deliveries.
func TestOrganizationsAreIsolated(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ra, rb := newReceiver(t), newReceiver(t)
	epA := register(t, a, ra)
	epB := register(t, b, rb)
	var mine []string
	for i := 0; i < 5; i++ {
		mine = append(mine, createClient(t, a, "A client"))
	}
	theirs := createClient(t, b, "B client")
	waitFor(t, "A's changes at A's receiver", func() bool { return len(created(ra)) == 5 })
	waitFor(t, "B's change at B's receiver", func() bool { return created(rb)[theirs] == 1 })
	for _, m := range rb.Messages() {
		if slices.Contains(mine, m.Data["id"].(string)) {
			t.Errorf("B's endpoint received A's %s", m.Type)
		}
	}
	if got := created(ra); got[theirs] != 0 {
		t.Error("A's endpoint received B's change")
	}
	if n := len(deliveries(t, b, epB)); n != 1 {
		t.Errorf("B's endpoint has %d deliveries, want 1", n)
	}
	dA := deliveries(t, a, epA)[0]["id"].(string)
	for _, r := range []*apitest.Response{
		b.Get(endpoints + "/" + epA),
		b.Patch(endpoints+"/"+epA, map[string]any{"description": "mine now"}),
		b.Get(endpoints + "/" + epA + "/deliveries"),
		b.Post(endpoints+"/"+epA+"/deliveries/"+dA+"/retry", nil),
		b.Post(endpoints+"/"+epB+"/deliveries/"+dA+"/retry", nil),
		b.Delete(endpoints + "/" + epA),
	} {
		if r.Status != 404 || r.ErrorCode() != "not_found" {
			t.Errorf("B on A's records: %d %s", r.Status, r.Body)
		}
	}
	for _, e := range b.Get(endpoints).List() {
		if e["id"] == epA {
			t.Error("B lists A's endpoint")
		}
	}
	if r := a.Get(endpoints + "/" + epA); r.Status != 200 || r.Data()["description"] != "test receiver" {
		t.Errorf("A's endpoint changed: %s", r.Body)
	}
}

// failingDelivery registers an endpoint of a new organization at a closed
// receiver and makes one client: a delivery that has failed once and keeps
// failing.
func failingDelivery(t *testing.T, env *apitest.Env) (*apitest.Org, string) {
	t.Helper()
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	rcv.Close()
	createClient(t, a, "Failing Ltd")
	waitFor(t, "a failed attempt", func() bool {
		ds := deliveries(t, a, ep)
		return len(ds) == 1 && ds[0]["attempt_count"].(float64) >= 1
	})
	return a, ep
}

// TestReenableGivesPendingAFreshWindow: a delivery still pending when its
// endpoint was disabled may be older than the retry window by the time the
// endpoint is enabled again. Re-enabling starts its window afresh: one more
// failure leaves it pending and the endpoint enabled, instead of failing it
// for good and disabling the endpoint at once. (Three days cannot pass in a
// test: the delivery's first failure is moved back in the database.)
func TestReenableGivesPendingAFreshWindow(t *testing.T) {
	env := newEnv(t)
	a, ep := failingDelivery(t, env)
	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "disabled"}); r.Status != 200 {
		t.Fatalf("disable: %d %s", r.Status, r.Body)
	}
	// An attempt claimed before the disable finishes first: re-enabling
	// leaves a delivery in flight to its attempt.
	waitFor(t, "no attempt in flight", func() bool {
		var n int
		err := env.Svc.DB.NewRaw(`SELECT count(*) FROM webhook_deliveries
			WHERE organization_id = ? AND endpoint_id = ? AND leased_until > clock_timestamp()`, a.ID, ep).Scan(context.Background(), &n)
		if err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
	_, err := env.Svc.DB.NewRaw(`UPDATE webhook_deliveries SET first_failed_at = clock_timestamp() - interval '4 days'
		WHERE organization_id = ? AND endpoint_id = ?`, a.ID, ep).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"}); r.Status != 200 {
		t.Fatalf("re-enable: %d %s", r.Status, r.Body)
	}
	before := deliveries(t, a, ep)[0]["attempt_count"].(float64)
	waitFor(t, "an attempt after re-enabling", func() bool {
		return deliveries(t, a, ep)[0]["attempt_count"].(float64) > before
	})
	if d := deliveries(t, a, ep)[0]; d["status"] != "pending" {
		t.Errorf("delivery after one failure past re-enabling: %v, want pending", d["status"])
	}
	if e := a.Get(endpoints + "/" + ep).Data(); e["status"] != "enabled" {
		t.Errorf("endpoint after one failure past re-enabling: %v, want enabled", e["status"])
	}
}

// TestReenableRacingAGiveUp: a PATCH that re-enables an endpoint (with new
// event types, so it reads no stored ones) while a worker's give-up is
// disabling it but has not committed: the PATCH waits for the give-up and
// then gives the pending deliveries their fresh window. (The give-up is
// played by the test's own transaction holding the endpoint's row.)
func TestReenableRacingAGiveUp(t *testing.T) {
	env := newEnv(t)
	a, ep := failingDelivery(t, env)
	ctx := context.Background()
	db := env.Svc.DB
	// Parked: an old first failure, and no attempt due for a day.
	waitFor(t, "the delivery parked", func() bool {
		res, err := db.NewRaw(`UPDATE webhook_deliveries SET first_failed_at = clock_timestamp() - interval '4 days',
				next_attempt_at = clock_timestamp() + interval '1 day'
			WHERE organization_id = ? AND endpoint_id = ? AND (leased_until IS NULL OR leased_until <= clock_timestamp())`, a.ID, ep).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.RowsAffected()
		return n == 1
	})
	giveUp, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = giveUp.Rollback() }()
	if _, err := giveUp.ExecContext(ctx, `UPDATE webhook_endpoints SET status = 'disabled' WHERE organization_id = ? AND id = ?`, a.ID, ep); err != nil {
		t.Fatal(err)
	}
	done := make(chan *apitest.Response, 1)
	go func() {
		done <- a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled", "enabled_events": []string{"client.created"}})
	}()
	waitFor(t, "the PATCH to wait for the endpoint's row", func() bool {
		var n int
		if err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	if err := giveUp.Commit(); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.Status != 200 || r.Data()["status"] != "enabled" {
		t.Fatalf("re-enable: %d %s", r.Status, r.Body)
	}
	var fresh bool
	if err := db.NewRaw(`SELECT first_failed_at IS NULL OR first_failed_at > clock_timestamp() - interval '1 day'
		FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?`, a.ID, ep).Scan(ctx, &fresh); err != nil {
		t.Fatal(err)
	}
	if !fresh {
		t.Error("the pending delivery kept its expired window after the endpoint was enabled again")
	}
}

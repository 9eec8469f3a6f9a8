package webhooks_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/openapi"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// rotatePath is the rotation route of endpoint ep.
func rotatePath(ep string) string { return endpoints + "/" + ep + "/rotate_secret" }

// rotate rotates ep's secret as o with body (nil: none) and returns the
// answer's data.
func rotate(t *testing.T, o *apitest.Org, ep string, body any) map[string]any {
	t.Helper()
	res := o.Post(rotatePath(ep), body)
	if res.Status != http.StatusOK {
		t.Fatalf("rotate %s: %d %s", ep, res.Status, res.Body)
	}
	d := res.Data()
	if s, _ := d["secret"].(string); !strings.HasPrefix(s, "whsec_") {
		t.Fatalf("rotation answered secret %v", d["secret"])
	}
	return d
}

// delivered creates a client in o and returns its client.created message
// once rcv has verified it (with the secret rcv holds).
func delivered(t *testing.T, o *apitest.Org, rcv *receiver, name string) message {
	t.Helper()
	id := createClient(t, o, name)
	var m message
	waitFor(t, "the client.created message of "+name, func() bool {
		for _, got := range rcv.Messages() {
			if got.Type == "client.created" && got.Data["id"] == id {
				m = got
				return true
			}
		}
		return false
	})
	return m
}

// verifiers reports, for each secret, whether the Standard Webhooks library
// verifies m with it.
func verifiers(t *testing.T, m message, secrets ...string) []bool {
	t.Helper()
	out := make([]bool, len(secrets))
	for i, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = wh.Verify(m.Body, m.Header) == nil
	}
	return out
}

// graceSeconds is previous_secret_expires_at less updated_at in an
// endpoint's rendering, in seconds (one reading of the clock sets both),
// or -1 when previous_secret_expires_at is null.
func graceSeconds(t *testing.T, e map[string]any) float64 {
	t.Helper()
	exp, ok := e["previous_secret_expires_at"].(string)
	if !ok {
		if v, present := e["previous_secret_expires_at"]; !present || v != nil {
			t.Fatalf("previous_secret_expires_at %v (present %v), want a time or null", v, present)
		}
		return -1
	}
	at, err := time.Parse(time.RFC3339Nano, exp)
	if err != nil {
		t.Fatal(err)
	}
	updated, err := time.Parse(time.RFC3339Nano, e["updated_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return at.Sub(updated).Seconds()
}

// TestRotateSecret: after a rotation every attempt carries two signatures,
// the new secret's and the old one's, and verifies with the Standard
// Webhooks library under either (a receiver that has not rolled over goes
// on working); a second rotation during the grace period drops the oldest
// secret; once the grace period is over only the newest secret verifies,
// and previous_secret_expires_at is null; a rotation with 0 stops the old
// secret at once. The secret is shown in the rotation's answer only.
func TestRotateSecret(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	s0 := rcv.secret
	ctx := context.Background()

	// A rotation with the default grace period: 24 hours.
	r1 := rotate(t, a, ep, nil)
	s1 := r1["secret"].(string)
	if s1 == s0 {
		t.Fatal("the rotation answered the old secret")
	}
	if g := graceSeconds(t, r1); g != 86400 {
		t.Errorf("default grace period %v s, want 86400", g)
	}
	got := a.Get(endpoints + "/" + ep).Data()
	if _, ok := got["secret"]; ok {
		t.Error("GET shows the secret")
	}
	want := maps.Clone(r1)
	delete(want, "secret")
	if !jsonEqual(got, want) {
		t.Errorf("GET after the rotation %v, want the rotation's answer without its secret %v", got, want)
	}
	if l := a.Get(endpoints).List(); len(l) != 1 || !jsonEqual(l[0], want) {
		t.Errorf("list after the rotation %v, want %v", l, want)
	}
	// The receiver still holds the old secret.
	m := delivered(t, a, rcv, "signed twice")
	if sigs := strings.Fields(m.Header.Get("webhook-signature")); len(sigs) != 2 {
		t.Errorf("webhook-signature %q, want two signatures", m.Header.Get("webhook-signature"))
	}
	if v := verifiers(t, m, s1, s0); !v[0] || !v[1] {
		t.Errorf("during the grace period: verifies with the new secret %v, with the old %v; want both", v[0], v[1])
	}

	// Rotating again during the grace period keeps only the secret it
	// replaces.
	rcv.SetSecret(s1)
	s2 := rotate(t, a, ep, map[string]any{"previous_secret_expires_in": 3600})["secret"].(string)
	m = delivered(t, a, rcv, "second rotation")
	if v := verifiers(t, m, s2, s1, s0); !v[0] || !v[1] || v[2] {
		t.Errorf("after a second rotation: verifies with the newest, the previous, the oldest secret %v; want true, true, false", v)
	}

	// The grace period ends (moved back in the database: a test cannot wait
	// an hour).
	res, err := env.Svc.DB.NewRaw(`UPDATE webhook_endpoints SET previous_secret_expires_at = clock_timestamp() - interval '1 second'
		WHERE organization_id = ? AND id = ?`, a.ID, ep).Exec(ctx)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("ending the grace period: %d rows, %v", n, err)
	}
	if e := a.Get(endpoints + "/" + ep).Data(); e["previous_secret_expires_at"] != nil {
		t.Errorf("previous_secret_expires_at after the grace period: %v, want null", e["previous_secret_expires_at"])
	}
	rcv.SetSecret(s2)
	m = delivered(t, a, rcv, "after the grace period")
	if sigs := strings.Fields(m.Header.Get("webhook-signature")); len(sigs) != 1 {
		t.Errorf("webhook-signature %q after the grace period, want one signature", m.Header.Get("webhook-signature"))
	}
	if v := verifiers(t, m, s2, s1); !v[0] || v[1] {
		t.Errorf("after the grace period: verifies with the new secret %v, with the old %v; want only the new", v[0], v[1])
	}

	// No grace period: the old secret stops at once.
	r3 := rotate(t, a, ep, map[string]any{"previous_secret_expires_in": 0})
	if r3["previous_secret_expires_at"] != nil {
		t.Errorf("previous_secret_expires_at after a rotation with 0: %v, want null", r3["previous_secret_expires_at"])
	}
	s3 := r3["secret"].(string)
	rcv.SetSecret(s3)
	m = delivered(t, a, rcv, "no grace period")
	if v := verifiers(t, m, s3, s2); !v[0] || v[1] {
		t.Errorf("after a rotation with 0: verifies with the new secret %v, with the old %v; want only the new", v[0], v[1])
	}
	if bad := rcv.Bad(); len(bad) != 0 {
		t.Errorf("the receiver refused %d requests: %v", len(bad), bad)
	}
}

// TestRotateSecretBody: the body is optional and strictly checked. None,
// {} and the bounds are accepted (the grace period the answer states is
// the one asked); anything else is refused with the documented status and
// code, naming the field, and changes nothing.
func TestRotateSecretBody(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ep := register(t, a, newReceiver(t), "client.created")
	path := rotatePath(ep)
	const field = "previous_secret_expires_in"

	for _, tc := range []struct {
		name  string
		body  any
		grace float64 // -1: null
	}{
		{"no body", nil, 86400},
		{"empty object", "{}", 86400},
		{"zero", map[string]any{field: 0}, -1},
		{"one second", map[string]any{field: 1}, 1},
		{"seven days", map[string]any{field: 604800}, 604800},
		{"a whole number written with a fraction", `{"previous_secret_expires_in": 60.0}`, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := a.Post(path, tc.body)
			if res.Status != http.StatusOK {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if g := graceSeconds(t, res.Data()); g != tc.grace {
				t.Errorf("grace period %v s, want %v", g, tc.grace)
			}
		})
	}

	invalid := func(name string, body any, f string) crudtest.Case {
		return crudtest.Case{Name: name, Path: path, Body: body, Status: 422, Code: "validation_error", Field: f}
	}
	cases := []crudtest.Case{
		invalid("a string", map[string]any{field: "3600"}, field),
		invalid("a fraction", map[string]any{field: 1.5}, field),
		invalid("negative", map[string]any{field: -1}, field),
		invalid("past seven days", map[string]any{field: 604801}, field),
		invalid("past 32 bits", map[string]any{field: 1e10}, field),
		invalid("null", map[string]any{field: nil}, field),
		invalid("a boolean", map[string]any{field: true}, field),
		invalid("an object", map[string]any{field: map[string]any{}}, field),
		invalid("an unknown field beside a valid one", map[string]any{field: 60, "expires_in": 60}, "expires_in"),
		invalid("the secret", map[string]any{"secret": "whsec_AAAA"}, "secret"),
		{Name: "an unknown id", Path: rotatePath(uuid.NewString()), Status: 404, Code: "not_found"},
		{Name: "not an id", Path: rotatePath("not-an-id"), Status: 404, Code: "not_found"},
	}
	cases = append(cases, crudtest.BodyCases(http.MethodPost, path, field)...)
	before := a.Get(endpoints + "/" + ep).Data()
	crudtest.Rejects(t, env, a, "webhook_endpoints", cases)
	if after := a.Get(endpoints + "/" + ep).Data(); !jsonEqual(after, before) {
		t.Errorf("the refused rotations changed the endpoint: %v, was %v", after, before)
	}
}

// TestRotateSecretDefaultIsDocumented: the default the handler applies is
// the one the OpenAPI document states.
func TestRotateSecretDefaultIsDocumented(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Default json.RawMessage `json:"default"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.MustJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Components.Schemas["WebhookSecretRotation"].Properties["previous_secret_expires_in"].Default
	if want := strconv.Itoa(int(store.DefaultPreviousSecretTTL.Seconds())); string(d) != want {
		t.Errorf("documented default %s, the handler's %s s", d, want)
	}
}

// TestRotateSecretReplay: a rotation sent again with its Idempotency-Key
// answers the stored response, the same new secret included, and does not
// rotate again (a second rotation would replace the secret the first
// answer gave); the key with another body is a conflict.
func TestRotateSecretReplay(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ep := register(t, a, newReceiver(t), "client.created")
	sealer := sealerOf(t, env)
	stored := func() (current, previous string) {
		t.Helper()
		var e store.Endpoint
		if err := env.Svc.DB.NewSelect().Model(&e).Where("organization_id = ? AND id = ?", a.ID, ep).Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		c, err := sealer.Open(e.SealedSecret, e.ID[:])
		if err != nil {
			t.Fatal(err)
		}
		p, err := sealer.Open(e.SealedPreviousSecret, e.ID[:])
		if err != nil {
			t.Fatal(err)
		}
		return string(c), string(p)
	}
	body := map[string]any{"previous_secret_expires_in": 600}
	first := a.Do(http.MethodPost, rotatePath(ep), body, "Idempotency-Key", "rotate-1")
	if first.Status != http.StatusOK {
		t.Fatalf("rotation: %d %s", first.Status, first.Body)
	}
	current, previous := stored()
	if current != first.Data()["secret"] {
		t.Fatal("the stored secret is not the one answered")
	}
	again := a.Do(http.MethodPost, rotatePath(ep), body, "Idempotency-Key", "rotate-1")
	if again.Status != http.StatusOK || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
		t.Fatalf("replay: %d %q %s, want the first answer %s", again.Status, again.Header.Get("Idempotent-Replayed"), again.Body, first.Body)
	}
	if c, p := stored(); c != current || p != previous {
		t.Error("the replay rotated the secret again")
	}
	other := a.Do(http.MethodPost, rotatePath(ep), map[string]any{"previous_secret_expires_in": 0}, "Idempotency-Key", "rotate-1")
	if other.Status != http.StatusConflict || other.ErrorCode() != "idempotency_key_mismatch" {
		t.Errorf("the key with another body: %d %s, want 409 idempotency_key_mismatch", other.Status, other.Body)
	}
	if c, p := stored(); c != current || p != previous {
		t.Error("the refused request rotated the secret")
	}
	// A rotation reads no body as {}: the two forms are one request, so a
	// retry that lost (or gained) the empty object replays the answer.
	bare := a.Do(http.MethodPost, rotatePath(ep), "{ }", "Idempotency-Key", "rotate-2")
	if bare.Status != http.StatusOK {
		t.Fatalf("rotation with {}: %d %s", bare.Status, bare.Body)
	}
	current, previous = stored()
	bodiless := a.Do(http.MethodPost, rotatePath(ep), nil, "Idempotency-Key", "rotate-2")
	if bodiless.Status != http.StatusOK || bodiless.Header.Get("Idempotent-Replayed") != "true" || string(bodiless.Body) != string(bare.Body) {
		t.Fatalf("the same key without a body: %d %q %s, want the replay of %s", bodiless.Status,
			bodiless.Header.Get("Idempotent-Replayed"), bodiless.Body, bare.Body)
	}
	if c, p := stored(); c != current || p != previous {
		t.Error("the request without a body rotated the secret again")
	}
}

// TestConcurrentRotations: two rotations of one endpoint at once run one
// after the other. Both wait on a lock the test holds on the endpoint's
// row; once it is released, the endpoint's secret is one answer's and its
// previous secret the other's: no answered secret is lost. Read before the
// row is locked, both rotations would keep the original secret as the
// previous one, and the secret the first of them answered would sign
// nothing.
func TestConcurrentRotations(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	ctx := context.Background()
	db := env.Svc.DB
	sealer := sealerOf(t, env)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.NewRaw(`SELECT 1 FROM webhook_endpoints WHERE organization_id = ? AND id = ? FOR UPDATE`, a.ID, ep).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	answers := make([]*apitest.Response, 2)
	for i := range answers {
		wg.Go(func() { answers[i] = a.Post(rotatePath(ep), nil) })
	}
	waitFor(t, "both rotations waiting on the endpoint's row", func() bool {
		var n int
		if err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%webhook_endpoints%'`).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n == 2
	})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	var secrets []string
	for _, r := range answers {
		if r.Status != http.StatusOK {
			t.Fatalf("rotation: %d %s", r.Status, r.Body)
		}
		secrets = append(secrets, r.Data()["secret"].(string))
	}
	var e store.Endpoint
	if err := db.NewSelect().Model(&e).Where("organization_id = ? AND id = ?", a.ID, ep).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, sealed := range [][]byte{e.SealedSecret, e.SealedPreviousSecret} {
		plain, err := sealer.Open(sealed, e.ID[:])
		if err != nil {
			t.Fatalf("opening a stored secret: %v", err)
		}
		kept = append(kept, string(plain))
	}
	slices.Sort(kept)
	slices.Sort(secrets)
	if !slices.Equal(kept, secrets) {
		t.Errorf("after two concurrent rotations the endpoint keeps %d of the two answered secrets (the original kept: %v)",
			countIn(secrets, kept), slices.Contains(kept, rcv.secret))
	}
}

// countIn counts the members of want that are in got.
func countIn(want, got []string) int {
	n := 0
	for _, w := range want {
		if slices.Contains(got, w) {
			n++
		}
	}
	return n
}

// jsonEqual compares two decoded JSON objects.
func jsonEqual(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

package edgetest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
)

const keyHeader = "Idempotency-Key"

func TestIdempotentWrites(t *testing.T) {
	env, tr := newApp(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	body := map[string]any{"name": "Northwind Events", "email": "ops@northwind.example"}

	first := a.Do("POST", "/api/v2/clients", body, keyHeader, "create-northwind")
	if first.Status != http.StatusCreated || first.Header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	id := first.Data()["id"].(string)

	t.Run("replay returns the same status and body", func(t *testing.T) {
		// Same body with other key order and spacing: the canonical JSON matches.
		again := a.Do("POST", "/api/v2/clients", `{ "email": "ops@northwind.example",  "name": "Northwind Events" }`,
			keyHeader, "create-northwind")
		if again.Status != http.StatusCreated || !bytes.Equal(again.Body, first.Body) ||
			again.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("replay: %d %s (replayed %q)", again.Status, again.Body, again.Header.Get(idempotency.HeaderReplayed))
		}
		if again.Header.Get("X-RateLimit-Limit") == "" {
			t.Fatal("replay without rate-limit headers")
		}
		if n := count(t, env, "clients", a.ID); n != 1 {
			t.Fatalf("%d clients, want 1", n)
		}
	})

	mismatches := []struct {
		name         string
		method, path string
		body         any
	}{
		{"another body", "POST", "/api/v2/clients", map[string]any{"name": "Someone Else"}},
		{"another path", "PATCH", "/api/v2/clients/" + id, body},
	}
	for _, m := range mismatches {
		t.Run("same key, "+m.name+": 409 idempotency_key_mismatch", func(t *testing.T) {
			r := a.Do(m.method, m.path, m.body, keyHeader, "create-northwind")
			if r.Status != http.StatusConflict || r.ErrorCode() != "idempotency_key_mismatch" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}

	t.Run("keys are scoped per organization", func(t *testing.T) {
		r := b.Do("POST", "/api/v2/clients", body, keyHeader, "create-northwind")
		if r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "" || r.Data()["id"] == id {
			t.Fatalf("org B: %d %s", r.Status, r.Body)
		}
	})

	t.Run("invalid keys: 422 naming the header", func(t *testing.T) {
		for _, k := range []string{strings.Repeat("k", 256), "caf\u00e9"} {
			r := a.Do("POST", "/api/v2/clients", body, keyHeader, k)
			fields, _ := r.JSON()["error"].(map[string]any)["details"].(map[string]any)["fields"].([]any)
			if r.Status != http.StatusUnprocessableEntity || len(fields) != 1 ||
				fields[0].(map[string]any)["field"] != keyHeader {
				t.Fatalf("key %q: %d %s", k, r.Status, r.Body)
			}
		}
		if n := count(t, env, "clients", a.ID); n != 1 {
			t.Fatalf("%d clients after refused keys, want 1", n)
		}
	})

	t.Run("a 4xx is stored and replayed", func(t *testing.T) {
		bad := a.Do("POST", "/api/v2/clients", map[string]any{"email": "not-an-email"}, keyHeader, "bad-create")
		if bad.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad: %d %s", bad.Status, bad.Body)
		}
		again := a.Do("POST", "/api/v2/clients", map[string]any{"email": "not-an-email"}, keyHeader, "bad-create")
		if again.Status != http.StatusUnprocessableEntity || again.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("replayed 4xx: %d %s", again.Status, again.Body)
		}
		// Same error, and error.request_id names the replaying request
		// (apitest checks it equals X-Request-Id on every response).
		e1, e2 := bad.JSON()["error"].(map[string]any), again.JSON()["error"].(map[string]any)
		if e1["code"] != e2["code"] || e1["message"] != e2["message"] || fmt.Sprint(e1["details"]) != fmt.Sprint(e2["details"]) {
			t.Fatalf("replayed error differs: %s vs %s", bad.Body, again.Body)
		}
	})

	t.Run("a 5xx is not stored: the retry executes again, nothing is kept", func(t *testing.T) {
		before := count(t, env, "clients", a.ID)
		for i := 1; i <= 2; i++ {
			r := viaApp(t, env.Svc.App, "POST", "/api/v2/edge-test/boom", a.Key, `{}`, keyHeader, "boom")
			if r.Status != http.StatusInternalServerError || r.Header.Get(idempotency.HeaderReplayed) != "" {
				t.Fatalf("attempt %d: %d %s", i, r.Status, r.Body)
			}
			if got := tr.runs.Load(); got != int64(i) {
				t.Fatalf("handler ran %d times after %d attempts", got, i)
			}
		}
		if n := count(t, env, "clients", a.ID); n != before {
			t.Fatalf("the failed request's write was kept: %d clients, want %d", n, before)
		}
		if n := keyRows(t, env, a.ID, "boom"); n != 0 {
			t.Fatalf("%d idempotency rows for a 5xx", n)
		}
	})

	t.Run("a 4xx from a refused statement is stored, without the request's writes", func(t *testing.T) {
		before := count(t, env, "clients", a.ID)
		for i, replayed := range []string{"", "true"} {
			r := viaApp(t, env.Svc.App, "POST", "/api/v2/edge-test/conflict", a.Key, `{}`, keyHeader, "conflict")
			if r.Status != http.StatusUnprocessableEntity || r.Code() != "validation_error" ||
				r.Header.Get(idempotency.HeaderReplayed) != replayed {
				t.Fatalf("attempt %d: %d %s (replayed %q)", i+1, r.Status, r.Body, r.Header.Get(idempotency.HeaderReplayed))
			}
		}
		if n := count(t, env, "clients", a.ID); n != before {
			t.Fatalf("%d clients, want %d: the refused request's first write was kept", n, before)
		}
		if n := keyRows(t, env, a.ID, "conflict"); n != 1 {
			t.Fatalf("%d idempotency rows, want 1", n)
		}
	})

	t.Run("PATCH and DELETE replay", func(t *testing.T) {
		p1 := a.Do("PATCH", "/api/v2/clients/"+id, map[string]any{"phone": "555-0100"}, keyHeader, "patch-1")
		p2 := a.Do("PATCH", "/api/v2/clients/"+id, map[string]any{"phone": "555-0100"}, keyHeader, "patch-1")
		if p1.Status != 200 || p2.Status != 200 || !bytes.Equal(p1.Body, p2.Body) || p2.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("patch: %d %s / %d %s", p1.Status, p1.Body, p2.Status, p2.Body)
		}
		// The DELETE route is a test route, outside the OpenAPI document:
		// sent past apitest's contract check.
		del := func(headers ...string) *reply {
			return viaApp(t, env.Svc.App, "DELETE", "/api/v2/edge-test/clients/"+id, a.Key, "", headers...)
		}
		d1, d2 := del(keyHeader, "delete-1"), del(keyHeader, "delete-1")
		if d1.Status != http.StatusNoContent || d2.Status != http.StatusNoContent || d2.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("delete: %d / %d %s", d1.Status, d2.Status, d2.Body)
		}
		if ct1, ct2 := d1.Header.Get("Content-Type"), d2.Header.Get("Content-Type"); ct1 != ct2 {
			t.Errorf("delete Content-Type %q, replayed %q", ct1, ct2)
		}
		if d3 := del(); d3.Status != http.StatusNotFound {
			t.Fatalf("delete without a key after the delete: %d", d3.Status)
		}
	})
}

// keyRows counts the idempotency_keys rows of (org, key).
func keyRows(t *testing.T, env *apitest.Env, org uuid.UUID, key string) int {
	t.Helper()
	n, err := env.Svc.DB.NewSelect().TableExpr("idempotency_keys").
		Where("organization_id = ? AND key = ?", org, key).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// Fifty parallel POSTs with one key create exactly one client; every other
// answer is the replay or 409 idempotency_key_in_use with Retry-After.
func TestConcurrentRequestsWithOneKey(t *testing.T) {
	env, _ := newApp(t)
	a := env.NewOrg("A")
	body := map[string]any{"name": "Parallel Productions"}
	const n = 50
	replies := make([]*apitest.Response, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			replies[i] = a.Do("POST", "/api/v2/clients", body, keyHeader, "one-key")
		}(i)
	}
	wg.Wait()
	var executed *apitest.Response
	var replayed, inUse int
	for _, r := range replies {
		switch {
		case r.Status == http.StatusCreated && r.Header.Get(idempotency.HeaderReplayed) == "":
			if executed != nil {
				t.Fatalf("two requests executed: %s and %s", executed.Body, r.Body)
			}
			executed = r
		case r.Status == http.StatusCreated:
			replayed++
		case r.Status == http.StatusConflict && r.ErrorCode() == "idempotency_key_in_use":
			if r.Header.Get("Retry-After") == "" {
				t.Fatal("in_use without Retry-After")
			}
			inUse++
		default:
			t.Fatalf("unexpected answer %d %s", r.Status, r.Body)
		}
	}
	if executed == nil {
		t.Fatal("no request executed")
	}
	for _, r := range replies {
		if r.Status == http.StatusCreated && !bytes.Equal(r.Body, executed.Body) {
			t.Fatalf("replay %s differs from %s", r.Body, executed.Body)
		}
	}
	t.Logf("1 executed, %d replayed, %d in use", replayed, inUse)
	if c := count(t, env, "clients", a.ID); c != 1 {
		t.Fatalf("%d clients, want exactly 1", c)
	}
	if k := keyRows(t, env, a.ID, "one-key"); k != 1 {
		t.Fatalf("%d idempotency rows, want 1", k)
	}
	r := a.Do("POST", "/api/v2/clients", map[string]any{"name": "Other"}, keyHeader, "one-key")
	if r.Status != http.StatusConflict || r.ErrorCode() != "idempotency_key_mismatch" {
		t.Fatalf("other body: %d %s", r.Status, r.Body)
	}
}

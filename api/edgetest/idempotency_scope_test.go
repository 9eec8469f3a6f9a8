package edgetest

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestReplayNeedsTheExecutionsScopeChecks: an Idempotency-Key is shared by
// the organization's keys, but its stored response is replayed only to a
// key that passes every scope check the execution passed (the route's
// guards, and any check that shaped the answer), since a replay skips them;
// such a key would have got the same answer by executing the request. A
// 403 for a key lacking the route's scope is not stored, so a key holding
// it may then execute.
func TestReplayNeedsTheExecutionsScopeChecks(t *testing.T) {
	env, _ := newApp(t)
	org := env.NewOrg("Acme")
	full := org.WithKey(apikey.Live, tenancy.AllScopes...)
	narrow := org.WithKey(apikey.Live, tenancy.EventsRead)
	writer := org.WithKey(apikey.Live, tenancy.ClientsWrite)
	body := map[string]any{"name": "Northwind"}

	first := full.Do("POST", "/api/v2/clients", body, keyHeader, "shared")
	if first.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	client, _ := first.JSON()["data"].(map[string]any)["id"].(string)
	patch := map[string]any{"notes": "VIP"}
	if r := full.Do("PATCH", "/api/v2/clients/"+client, patch, keyHeader, "patched"); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	pickList := full.Do("POST", "/api/v2/pick_lists", map[string]any{"name": "Gala"})
	if pickList.Status != http.StatusCreated {
		t.Fatalf("pick list: %d %s", pickList.Status, pickList.Body)
	}
	listPath := "/api/v2/pick_lists/" + pickList.JSON()["data"].(map[string]any)["id"].(string)
	rename := map[string]any{"name": "Gala, day 2"}
	if r := full.Do("PATCH", listPath, rename, keyHeader, "renamed"); r.Status != http.StatusOK {
		t.Fatalf("pick list patch: %d %s", r.Status, r.Body)
	}
	tests := []struct {
		name           string
		key            *apitest.Org
		method, path   string
		body           map[string]any
		idempotencyKey string
		status         int
		required       []string
	}{
		{"the executing key gets the replay", full, "POST", "/api/v2/clients", body, "shared", http.StatusCreated, nil},
		{"a key with the route's scope gets it", writer, "POST", "/api/v2/clients", body, "shared", http.StatusCreated, nil},
		{"a key lacking the route's scope is refused, naming it", narrow, "POST", "/api/v2/clients", body, "shared",
			http.StatusForbidden, []string{"clients:write"}},
		{"a PATCH needs the read scope its execution passed", writer, "PATCH", "/api/v2/clients/" + client, patch, "patched",
			http.StatusForbidden, []string{"clients:read"}},
		{"any one of a check's scopes passes it", org.WithKey(apikey.Live, tenancy.PickListsWrite, tenancy.JobsRead),
			"PATCH", listPath, rename, "renamed", http.StatusOK, nil},
		{"a check of several scopes names them all", org.WithKey(apikey.Live, tenancy.PickListsWrite),
			"PATCH", listPath, rename, "renamed", http.StatusForbidden, []string{"events:read", "pick_lists:read", "jobs:read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.key.Do(tt.method, tt.path, tt.body, keyHeader, tt.idempotencyKey)
			replayed := r.Header.Get(idempotency.HeaderReplayed)
			if r.Status != tt.status || (tt.required == nil) != (replayed == "true") {
				t.Fatalf("%d %s (replayed %q), want %d", r.Status, r.Body, replayed, tt.status)
			}
			if tt.required == nil {
				return
			}
			want := slices.Clone(tt.required)
			slices.Sort(want)
			if r.ErrorCode() != "insufficient_scope" || !slices.Equal(r.RequiredScopes(), want) {
				t.Fatalf("%s, want insufficient_scope requiring %v", r.Body, tt.required)
			}
		})
	}

	t.Run("the database's copy keeps the scopes", func(t *testing.T) {
		// Without the edge store's record the database row answers.
		if err := env.Svc.Edge.Delete(context.Background(), idempotency.StoreKey(org.ID, "shared")); err != nil {
			t.Fatal(err)
		}
		if r := narrow.Do("POST", "/api/v2/clients", body, keyHeader, "shared"); r.Status != http.StatusForbidden {
			t.Fatalf("narrow key after the edge record was lost: %d %s", r.Status, r.Body)
		}
		if r := full.Do("POST", "/api/v2/clients", body, keyHeader, "shared"); r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("executing key after the edge record was lost: %d %s", r.Status, r.Body)
		}
	})

	t.Run("a 403 is not stored", func(t *testing.T) {
		refused := narrow.Do("POST", "/api/v2/clients", map[string]any{"name": "Later"}, keyHeader, "refused-first")
		if refused.Status != http.StatusForbidden {
			t.Fatalf("narrow key: %d %s", refused.Status, refused.Body)
		}
		r := full.Do("POST", "/api/v2/clients", map[string]any{"name": "Later"}, keyHeader, "refused-first")
		if r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("a key with the scope got %d %s (replayed %q), want a fresh 201", r.Status, r.Body, r.Header.Get(idempotency.HeaderReplayed))
		}
	})
}

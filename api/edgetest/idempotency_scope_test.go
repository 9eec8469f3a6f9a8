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
// key holding the scope with which the execution passed each of its scope
// checks (the route's guards, and any check that shaped the answer), since
// a replay skips them; such a key would have got the same answer by
// executing the request. A
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
	// It passes the read check (any of pick_lists:read, events:read,
	// jobs:read) with jobs:read.
	picker := org.WithKey(apikey.Live, tenancy.PickListsWrite, tenancy.JobsRead)
	if r := picker.Do("PATCH", listPath, rename, keyHeader, "renamed"); r.Status != http.StatusOK {
		t.Fatalf("pick list patch: %d %s", r.Status, r.Body)
	}
	id := func(path string, body map[string]any) string {
		r := full.Do("POST", path, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
		}
		return r.JSON()["data"].(map[string]any)["id"].(string)
	}
	equipment := id("/api/v2/equipment", map[string]any{"name": "Amp", "weight_lbs": 50})
	event := id("/api/v2/events", map[string]any{"name": "Gala", "venue": "Pier 4",
		"start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z"})
	truck := id("/api/v2/vehicles", map[string]any{"name": "Van", "status": "available", "max_payload_lbs": 1000})
	later := id("/api/v2/events", map[string]any{"name": "Gala, day 2", "venue": "Pier 4",
		"start_date": "2026-07-01T18:00:00Z", "end_date": "2026-07-02T02:00:00Z"})
	booking := func(event string, vehicle any) map[string]any {
		return map[string]any{"equipment_id": equipment, "event_id": event, "vehicle_id": vehicle,
			"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"}
	}
	// A cancelled booking, off a truck, can carry no warning that needs
	// the read scope (load, overdue_returns), so the scope is not checked;
	// a reserved one, or one on a truck, is, whether a warning came or not.
	released := booking(event, nil)
	released["reservation_status"] = "cancelled"
	if r := full.Do("POST", "/api/v2/equipment_reservations", released, keyHeader, "released"); r.Status != http.StatusCreated {
		t.Fatalf("released booking: %d %s", r.Status, r.Body)
	}
	held := booking(event, nil)
	delete(held, "event_id")
	if r := full.Do("POST", "/api/v2/equipment_reservations", held, keyHeader, "held"); r.Status != http.StatusCreated {
		t.Fatalf("booking: %d %s", r.Status, r.Body)
	}
	loaded := booking(later, truck)
	if r := full.Do("POST", "/api/v2/equipment_reservations", loaded, keyHeader, "loaded"); r.Status != http.StatusCreated {
		t.Fatalf("booking on a truck: %d %s", r.Status, r.Body)
	}
	booker := org.WithKey(apikey.Live, tenancy.EquipmentReservationsWrite)
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
		{"a key holding the scopes the checks were passed with gets it",
			org.WithKey(apikey.Live, tenancy.PickListsWrite, tenancy.JobsRead, tenancy.ClientsRead),
			"PATCH", listPath, rename, "renamed", http.StatusOK, nil},
		{"another scope of a check of several is not enough", org.WithKey(apikey.Live, tenancy.PickListsWrite, tenancy.EventsRead),
			"PATCH", listPath, rename, "renamed", http.StatusForbidden, []string{"jobs:read"}},
		{"a booking holding nothing, off a truck, replays to a write-only key", booker, "POST", "/api/v2/equipment_reservations", released, "released",
			http.StatusCreated, nil},
		{"a reserved booking needs the read scope its overdue warning needs", booker, "POST", "/api/v2/equipment_reservations", held, "held",
			http.StatusForbidden, []string{"equipment_reservations:read"}},
		{"a booking on a truck needs the read scope its warnings need", booker, "POST", "/api/v2/equipment_reservations", loaded, "loaded",
			http.StatusForbidden, []string{"equipment_reservations:read"}},
		// The record's checks come before the comparison of the request:
		// a wrong guess of the booking (off the truck) gets the same 403,
		// where it got 409 and told the key the right guess from a wrong one.
		{"a wrong guess of that booking gets the same answer", booker, "POST", "/api/v2/equipment_reservations", booking(later, nil), "loaded",
			http.StatusForbidden, []string{"equipment_reservations:read"}},
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

// TestAKeyWithoutTheRouteScopeLearnsNothingFromAnIdempotencyKey: a key that
// fails the route's scope checks gets the route's own 403 when it sends
// another key's Idempotency-Key, whether its body is the stored request's
// or not, the same answer as without the header. Before, the stored
// request was compared first: a wrong guess got 409
// idempotency_key_mismatch and a right one 403, so any key of the
// organization could test guesses of another key's write (a status, a
// price) through a key read from the request log.
func TestAKeyWithoutTheRouteScopeLearnsNothingFromAnIdempotencyKey(t *testing.T) {
	env, _ := newApp(t)
	org := env.NewOrg("Acme")
	full := org.WithKey(apikey.Live, tenancy.AllScopes...)
	created := full.Do("POST", "/api/v2/clients", map[string]any{"name": "Northwind"})
	if created.Status != http.StatusCreated {
		t.Fatalf("client: %d %s", created.Status, created.Body)
	}
	client := "/api/v2/clients/" + created.JSON()["data"].(map[string]any)["id"].(string)
	stored := map[string]any{"notes": "pays late"}
	if r := full.Do("PATCH", client, stored, keyHeader, "crm-sync-17"); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	wrong := map[string]any{"notes": "pays on time"}
	for _, tt := range []struct {
		name     string
		key      *apitest.Org
		required []string
	}{
		{"a key of another surface", org.WithKey(apikey.Live, tenancy.CrewRead), []string{"clients:write"}},
		{"a read-only key", org.WithKey(apikey.Live, tenancy.ClientsRead), []string{"clients:write"}},
		{"a write-only key", org.WithKey(apikey.Live, tenancy.ClientsWrite), []string{"clients:read"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answer := func(body map[string]any, headers ...string) string {
				t.Helper()
				r := tt.key.Do("PATCH", client, body, headers...)
				want := slices.Clone(tt.required)
				slices.Sort(want)
				if r.Status != http.StatusForbidden || r.ErrorCode() != "insufficient_scope" || !slices.Equal(r.RequiredScopes(), want) {
					t.Fatalf("%d %s, want 403 insufficient_scope requiring %v", r.Status, r.Body, tt.required)
				}
				return r.ErrorMessage()
			}
			right, guess, plain := answer(stored, keyHeader, "crm-sync-17"), answer(wrong, keyHeader, "crm-sync-17"), answer(wrong)
			if right != guess || right != plain {
				t.Errorf("the answers differ: right body %q, wrong body %q, no Idempotency-Key %q", right, guess, plain)
			}
		})
	}
	if r := full.Do("GET", client, nil); r.JSON()["data"].(map[string]any)["notes"] != "pays late" {
		t.Errorf("the client changed: %s", r.Body)
	}
}

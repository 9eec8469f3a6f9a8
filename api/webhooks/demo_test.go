package webhooks_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestEndpointIsDemoWhenATestKeyRegistersIt: an endpoint carries demo as
// every v2 record does, from the key that registers it: a live key's is
// false, a test key's true, whether the test key acts on an organization
// without a sandbox or in its organization's sandbox. Every answer that
// shows the endpoint says so (registration, GET, list, PATCH, rotation),
// and the row holds it.
func TestEndpointIsDemoWhenATestKeyRegistersIt(t *testing.T) {
	env := newEnv(t)
	live := env.NewOrg("Live")
	withSandbox := env.NewOrg("With sandbox")
	for _, tt := range []struct {
		name string
		by   *apitest.Org
		want bool
	}{
		{"live key", live, false},
		{"test key of an organization without a sandbox", live.WithKey(apikey.Test, tenancy.AllScopes...), true},
		{"test key in its organization's sandbox", withSandbox.SandboxOf("Sandbox"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.by.Post(endpoints, map[string]any{"url": newReceiver(t).URL(), "enabled_events": []string{"client.created"}})
			if r.Status != 201 {
				t.Fatalf("register: %d %s", r.Status, r.Body)
			}
			id := r.Data()["id"].(string)
			item := endpoints + "/" + id
			for _, a := range []struct {
				what string
				res  *apitest.Response
			}{
				{"POST", r},
				{"GET", tt.by.Get(item)},
				{"PATCH", tt.by.Patch(item, map[string]any{"description": "renamed"})},
				{"rotate_secret", tt.by.Post(rotatePath(id), map[string]any{})},
			} {
				if a.res.Status/100 != 2 || a.res.Data()["demo"] != tt.want {
					t.Errorf("%s: %d %s, want demo %v", a.what, a.res.Status, a.res.Body, tt.want)
				}
			}
			listed := false
			for _, e := range tt.by.Get(endpoints + "?limit=100").List() {
				if e["id"] == id {
					listed = true
					if e["demo"] != tt.want {
						t.Errorf("listed with demo %v, want %v", e["demo"], tt.want)
					}
				}
			}
			if !listed {
				t.Error("the list does not show the endpoint")
			}
			var stored bool
			if err := env.Svc.DB.NewRaw("SELECT demo FROM webhook_endpoints WHERE organization_id = ? AND id = ?", tt.by.ID, id).
				Scan(context.Background(), &stored); err != nil || stored != tt.want {
				t.Errorf("stored demo %v (%v), want %v", stored, err, tt.want)
			}
		})
	}
}

// TestATestKeysEndpointReceivesTheLiveChanges: a test key of an
// organization without a sandbox registers on the organization itself, so
// its endpoint, marked demo, receives what the live keys write; the live
// key's list shows it, and the live key may delete it (docs/webhooks.md,
// "Endpoints API").
func TestATestKeysEndpointReceivesTheLiveChanges(t *testing.T) {
	env := newEnv(t)
	live := env.NewOrg("Live")
	rcv := newReceiver(t)
	ep := register(t, live.WithKey(apikey.Test, tenancy.AllScopes...), rcv, "client.created")
	client := createClient(t, live, "Live customer")
	waitFor(t, "the live client's change at the test key's endpoint", func() bool { return created(rcv)[client] > 0 })
	var found bool
	for _, e := range live.Get(endpoints + "?limit=100").List() {
		found = found || (e["id"] == ep && e["demo"] == true)
	}
	if !found {
		t.Fatal("the live key's list does not show the endpoint with demo true")
	}
	if r := live.Delete(endpoints + "/" + ep); r.Status != 204 {
		t.Fatalf("the live key deletes it: %d %s", r.Status, r.Body)
	}
}

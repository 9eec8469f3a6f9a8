package webhooks_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestEndpointNamesTheKeyThatRegisteredIt: an endpoint says which key
// registered it, in the registration's answer, the endpoint and the list;
// a change to it keeps the key; revoking the key leaves the endpoint
// enabled and still naming it; an endpoint registered before 2.12.0 says
// null.
func TestEndpointNamesTheKeyThatRegisteredIt(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	narrow := a.WithKey(apikey.Live, tenancy.WebhooksWrite, tenancy.WebhooksRead, tenancy.ClientsRead)
	var keys []uuid.UUID
	if err := env.Svc.DB.NewRaw("SELECT id FROM api_keys WHERE organization_id = ? ORDER BY created_at, id", a.ID).
		Scan(context.Background(), &keys); err != nil || len(keys) != 2 {
		t.Fatalf("the organization's keys: %v %v", keys, err)
	}
	// registered maps each endpoint to the key that registered it.
	registered := map[string]string{}
	for i, by := range []*apitest.Org{a, narrow} {
		r := by.Post(endpoints, map[string]any{"url": newReceiver(t).URL(), "enabled_events": []string{"client.created"}})
		if d := r.Data(); r.Status != 201 || d["created_by_key_id"] != keys[i].String() {
			t.Fatalf("registered by key %d: %d %s, want created_by_key_id %s", i, r.Status, r.Body, keys[i])
		}
		registered[r.Data()["id"].(string)] = keys[i].String()
	}
	check := func(when string) {
		t.Helper()
		list := a.Get(endpoints)
		if list.Status != 200 {
			t.Fatalf("%s: list %d %s", when, list.Status, list.Body)
		}
		seen := 0
		for _, item := range list.JSON()["data"].([]any) {
			e := item.(map[string]any)
			if want, ok := registered[e["id"].(string)]; ok {
				seen++
				if e["created_by_key_id"] != want || e["status"] != "enabled" {
					t.Errorf("%s: listed %v, want created_by_key_id %s, enabled", when, e, want)
				}
			}
			one := a.Get(endpoints + "/" + e["id"].(string)).Data()
			if one["created_by_key_id"] != e["created_by_key_id"] {
				t.Errorf("%s: GET says %v, the list %v", when, one["created_by_key_id"], e["created_by_key_id"])
			}
		}
		if seen != len(registered) {
			t.Errorf("%s: listed %d of the %d endpoints", when, seen, len(registered))
		}
	}
	check("registered")
	for id := range registered {
		if r := a.Patch(endpoints+"/"+id, map[string]any{"description": "changed by the other key"}); r.Status != 200 || r.Data()["created_by_key_id"] != registered[id] {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
	}
	if err := tenancy.RevokeKey(context.Background(), env.Svc.DB, keys[1]); err != nil {
		t.Fatal(err)
	}
	check("after revoking the narrow key")

	var old string
	for id, key := range registered {
		if key == keys[1].String() {
			old = id
		}
	}
	if _, err := env.Svc.DB.NewRaw("UPDATE webhook_endpoints SET created_by_key_id = NULL WHERE organization_id = ? AND id = ?", a.ID, old).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := a.Get(endpoints + "/" + old).Data(); d["created_by_key_id"] != nil {
		t.Errorf("an endpoint registered before 2.12.0: created_by_key_id %v, want null", d["created_by_key_id"])
	} else if _, present := d["created_by_key_id"]; !present {
		t.Errorf("an endpoint registered before 2.12.0 lacks created_by_key_id: %v", d)
	}
}

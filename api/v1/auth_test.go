package v1_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestScopes(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	fa := fix(t, env, a)
	equip := fa.equipment(equipment{name: "Truss"})
	job := fa.event("Gala", "confirmed", mustTime("2026-05-01T18:00:00Z"), mustTime("2026-05-02T02:00:00Z"),
		mustTime("2026-01-01T00:00:00Z"), nil)
	crew := fa.crew("Sam", "Lee", nil, nil, nil)

	keyWith := func(scopes ...tenancy.Scope) string { return env.NewKey(a.ID, apikey.Live, scopes...) }
	// Every v2 scope and the legacy ones, minus the one an endpoint needs.
	allBut := func(drop ...tenancy.Scope) string {
		var keep []tenancy.Scope
		for _, s := range tenancy.AllScopes {
			if !slices.Contains(drop, s) {
				keep = append(keep, s)
			}
		}
		return keyWith(keep...)
	}
	readOnly := keyWith(tenancy.EquipmentRead)
	writeOnly := keyWith(tenancy.EquipmentWrite)
	readWrite := keyWith(tenancy.EquipmentRead, tenancy.EquipmentWrite)
	patch := `{"weight_lbs": 12}`

	cases := []struct {
		name, method, path, key, body string
		status                        int
	}{
		{"equipment list without equipment:read", "GET", "/api/v1/equipment", allBut(tenancy.EquipmentRead), "", 403},
		{"equipment get without equipment:read", "GET", "/api/v1/equipment/" + equip, allBut(tenancy.EquipmentRead), "", 403},
		{"jobs list without jobs:read", "GET", "/api/v1/jobs", allBut(tenancy.JobsRead), "", 403},
		{"job get without jobs:read", "GET", "/api/v1/jobs/" + job, allBut(tenancy.JobsRead), "", 403},
		{"crew list without crew:read", "GET", "/api/v1/crew", allBut(tenancy.CrewRead), "", 403},
		{"crew get without crew:read", "GET", "/api/v1/crew/" + crew, allBut(tenancy.CrewRead), "", 403},
		{"patch with read only", "PATCH", "/api/v1/equipment/" + equip, readOnly, patch, 403},
		{"patch with write but no read", "PATCH", "/api/v1/equipment/" + equip, writeOnly, patch, 403},
		{"patch with write but no read, unknown id", "PATCH", "/api/v1/equipment/" + uuid.NewString(), writeOnly, patch, 403},
		{"equipment:read lists", "GET", "/api/v1/equipment", readOnly, "", 200},
		{"equipment:read gets", "GET", "/api/v1/equipment/" + equip, readOnly, "", 200},
		{"read+write patches", "PATCH", "/api/v1/equipment/" + equip, readWrite, patch, 200},
		{"jobs:read lists", "GET", "/api/v1/jobs", keyWith(tenancy.JobsRead), "", 200},
		{"jobs:read gets", "GET", "/api/v1/jobs/" + job, keyWith(tenancy.JobsRead), "", 200},
		{"crew:read lists", "GET", "/api/v1/crew", keyWith(tenancy.CrewRead), "", 200},
		{"crew:read gets", "GET", "/api/v1/crew/" + crew, keyWith(tenancy.CrewRead), "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := apitest.Request{Method: c.method, Path: c.path, Key: c.key}
			if c.body != "" {
				req.Body = c.body
			}
			r := env.Send(req)
			if c.status == 403 {
				wantV1Error(t, r, http.StatusForbidden, "FORBIDDEN")
				return
			}
			wantStatus(t, r, c.status)
		})
	}
}

func TestProtocol(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	equip := fix(t, env, a).equipment(equipment{name: "Truss"})

	t.Run("legacy sk_live_ key works", func(t *testing.T) {
		key := env.NewKey(a.ID, apikey.Legacy, tenancy.EquipmentRead)
		if !strings.HasPrefix(key, "sk_live_") || len(key) != len("sk_live_")+64 {
			t.Fatalf("legacy key form %q", key)
		}
		r := get(env, key, "/api/v1/equipment")
		wantStatus(t, r, http.StatusOK)
		if len(ids(r)) != 1 {
			t.Fatalf("legacy key list: %s", r.Body)
		}
	})
	t.Run("svc_test_ key works", func(t *testing.T) {
		wantStatus(t, get(env, env.NewKey(a.ID, apikey.Test, tenancy.EquipmentRead), "/api/v1/equipment/"+equip), http.StatusOK)
	})

	unauthorized := map[string]string{
		"missing key":          "",
		"malformed key":        "not-a-key",
		"unknown legacy key":   "sk_live_" + strings.Repeat("ab", 32),
		"legacy key too short": "sk_live_" + strings.Repeat("ab", 31),
	}
	for name, key := range unauthorized {
		t.Run("401 "+name, func(t *testing.T) {
			r := get(env, key, "/api/v1/equipment")
			wantV1Error(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
			if r.Header.Get("Deprecation") != "true" || r.Header.Get("Sunset") == "" {
				t.Errorf("deprecation headers missing on 401")
			}
		})
	}
	t.Run("401 revoked key", func(t *testing.T) {
		k, err := tenancy.CreateKey(t.Context(), env.Svc.DB, tenancy.NewKey{OrganizationID: a.ID, Name: "gone",
			Scopes: []tenancy.Scope{tenancy.EquipmentRead}, Mode: apikey.Legacy})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, get(env, k.Secret, "/api/v1/equipment"), http.StatusOK)
		if err := tenancy.RevokeKey(t.Context(), env.Svc.DB, k.ID); err != nil {
			t.Fatal(err)
		}
		// The lookup stays cached for at most tenancy.CacheTTL: poll until
		// the revocation shows, accepting only 200 meanwhile.
		deadline := time.Now().Add(10 * tenancy.CacheTTL)
		r := get(env, k.Secret, "/api/v1/equipment")
		for r.Status == http.StatusOK && time.Now().Before(deadline) {
			time.Sleep(25 * time.Millisecond)
			r = get(env, k.Secret, "/api/v1/equipment")
		}
		wantV1Error(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	})

	methods := []struct{ method, path string }{
		{"POST", "/api/v1/equipment"},
		{"DELETE", "/api/v1/equipment/" + equip},
		{"PUT", "/api/v1/equipment/" + equip},
		{"POST", "/api/v1/jobs"},
		{"PATCH", "/api/v1/jobs/" + uuid.NewString()},
		{"POST", "/api/v1/crew"},
		{"DELETE", "/api/v1/crew/" + uuid.NewString()},
	}
	for _, m := range methods {
		t.Run("405 "+m.method+" "+m.path, func(t *testing.T) {
			r := env.Send(apitest.Request{Method: m.method, Path: m.path, Key: a.Key, Body: `{}`})
			wantV1Error(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
			if r.Header.Get("Allow") == "" {
				t.Errorf("no Allow header")
			}
		})
	}

	for _, q := range []string{"page=0", "page=-1", "page=x", "page=", "page=1.5", "page=+2", "page=99999999999999999999",
		"limit=0", "limit=101", "limit=-5", "limit=abc", "limit=", "limit=1e2"} {
		for _, list := range []string{"/api/v1/equipment", "/api/v1/jobs", "/api/v1/crew"} {
			t.Run("400 "+list+"?"+q, func(t *testing.T) {
				field := strings.SplitN(q, "=", 2)[0]
				wantV1Error(t, get(env, a.Key, list+"?"+q), http.StatusBadRequest, "BAD_REQUEST", field)
			})
		}
	}
	t.Run("both bad paging fields named", func(t *testing.T) {
		wantV1Error(t, get(env, a.Key, "/api/v1/equipment?page=0&limit=500"), http.StatusBadRequest, "BAD_REQUEST", "page", "limit")
	})
	t.Run("defaults and limits in range", func(t *testing.T) {
		for _, q := range []string{"", "?page=1", "?limit=1", "?limit=100", "?page=2147483647&limit=100"} {
			r := get(env, a.Key, "/api/v1/equipment"+q)
			wantStatus(t, r, http.StatusOK)
		}
	})
	t.Run("unknown v1 path is 404 in the v1 envelope", func(t *testing.T) {
		wantV1Error(t, get(env, a.Key, "/api/v1/vehicles"), http.StatusNotFound, "NOT_FOUND")
	})
}

func mustTime(s string) time.Time {
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return ts
}

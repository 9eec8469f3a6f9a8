package crew_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/crew"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

const path = "/api/v2/crew_members"

// storeMember creates crew member i of o through the store (fast, no HTTP).
func storeMember(t *testing.T, env *apitest.Env, o *apitest.Org, i int) string {
	t.Helper()
	var ch storage.Changes
	ch.Set("first_name", fmt.Sprintf("Tech%03d", i))
	ch.Set("last_name", "Crew")
	m, err := crew.Create(context.Background(), env.Svc.DB, o.Tenant(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return m.ID.String()
}

func TestCrewLifecycle(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rec := crudtest.Lifecycle{
		Path: path,
		Create: map[string]any{
			"first_name": "Dana", "last_name": "Okafor", "email": "dana@crew.example", "phone": "+1 503 555 0101",
			"role": "A1 audio engineer", "notes": "Certified rigger",
		},
		Defaults: map[string]any{"is_active": true, "demo": false},
		Patch:    map[string]any{"last_name": "Okafor-Reyes", "role": "Production manager", "is_active": false},
	}.Run(t, a)
	crudtest.PatchSemantics(t, env, a, b, crudtest.PatchRules{
		Item:     path + "/" + rec["id"].(string),
		Table:    "crew_members",
		Nullable: []string{"email", "phone", "role", "notes"},
		NotNull:  []string{"first_name", "last_name", "is_active"},
		Valid:    map[string]any{"first_name": "Hijacked"},
	})
	t.Run("is_active false on create", func(t *testing.T) {
		r := a.Post(path, map[string]any{"first_name": "Sam", "last_name": "Lee", "is_active": false})
		if r.Status != 201 || r.Data()["is_active"] != false {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

func TestCrewPaging(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	var want []string
	for i := range 30 {
		want = append(want, storeMember(t, env, a, i))
		storeMember(t, env, b, i)
	}
	n := 30
	got := crudtest.Walk(t, a, path, 7, func(int) {
		want = append(want, storeMember(t, env, a, n))
		n++
	})
	crudtest.AssertExactlyOnce(t, got, want)
}

func TestCrewScopes(t *testing.T) {
	env := apitest.New(t)
	tests := []struct {
		scope  tenancy.Scope
		method string
		path   string
		want   int
	}{
		{tenancy.CrewMembersRead, "GET", path, 200},
		{tenancy.CrewMembersRead, "GET", path + "/{id}", 200},
		{tenancy.CrewMembersRead, "POST", path, 403},
		{tenancy.CrewMembersRead, "PATCH", path + "/{id}", 403},
		{tenancy.CrewMembersWrite, "GET", path, 403},
		// A PATCH answers the record: it needs the read scope too.
		{tenancy.CrewMembersWrite, "PATCH", path + "/{id}", 403},
		{tenancy.CrewRead, "GET", path, 403},
		{tenancy.CrewRead, "GET", path + "/{id}", 403},
	}
	for _, tt := range tests {
		o := env.NewOrgWithKey("S", apikey.Live, tt.scope)
		id := storeMember(t, env, o, 0)
		r := o.Do(tt.method, strings.ReplaceAll(tt.path, "{id}", id), map[string]any{})
		if r.Status != tt.want || (tt.want == 403 && r.ErrorCode() != "insufficient_scope") {
			t.Errorf("%s %s with %s: %d %s, want %d", tt.method, tt.path, tt.scope, r.Status, r.ErrorCode(), tt.want)
		}
	}
}

func TestCrewRejects(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	id := storeMember(t, env, a, 0)
	storeMember(t, env, a, 1)
	item := path + "/" + id
	valid := func(over map[string]any, drop ...string) map[string]any {
		m := map[string]any{"first_name": "Dana", "last_name": "Okafor"}
		for k, v := range over {
			m[k] = v
		}
		for _, k := range drop {
			delete(m, k)
		}
		return m
	}
	bad := func(method, p, name, field string, body any) crudtest.Case {
		return crudtest.Case{Name: name, Method: method, Path: p, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	cases := []crudtest.Case{
		bad("POST", path, "missing first_name", "first_name", valid(nil, "first_name")),
		bad("POST", path, "missing last_name", "last_name", valid(nil, "last_name")),
		bad("POST", path, "empty body", "first_name", map[string]any{}),
		bad("POST", path, "first_name number", "first_name", valid(map[string]any{"first_name": 3})),
		bad("POST", path, "last_name blank", "last_name", valid(map[string]any{"last_name": "\t"})),
		bad("POST", path, "invalid email", "email", valid(map[string]any{"email": "dana@"})),
		bad("POST", path, "email spaces", "email", valid(map[string]any{"email": "dana okafor@crew.example"})),
		bad("POST", path, "is_active string", "is_active", valid(map[string]any{"is_active": "yes"})),
		bad("POST", path, "is_active null", "is_active", valid(map[string]any{"is_active": nil})),
		bad("POST", path, "is_active number", "is_active", valid(map[string]any{"is_active": 1})),
		bad("POST", path, "100 kB role", "role", valid(map[string]any{"role": strings.Repeat("r", 100<<10)})),
		bad("POST", path, "100 kB notes", "notes", valid(map[string]any{"notes": strings.Repeat("r", 100<<10)})),
		bad("PATCH", item, "patch invalid email", "email", map[string]any{"email": "x@y"}),
		bad("PATCH", item, "patch first_name empty", "first_name", map[string]any{"first_name": ""}),
		bad("PATCH", item, "patch is_active string", "is_active", map[string]any{"is_active": "false"}),
		{Name: "patch unknown id", Method: "PATCH", Path: path + "/6f1c2a3e-0000-4000-8000-000000000000", Body: map[string]any{"role": "x"}, Status: 404, Code: "not_found"},
	}
	cases = append(cases, crudtest.BodyCases("POST", path, "first_name")...)
	patch := crudtest.BodyCases("PATCH", item, "last_name")
	for i := range patch {
		patch[i].Name = "patch " + patch[i].Name
	}
	cases = append(cases, patch...)
	for _, n := range []string{"c1", "c2"} {
		a.Post("/api/v2/clients", map[string]any{"name": n})
	}
	cases = append(cases, crudtest.ListCases(path, crudtest.Cursor(t, a, path), crudtest.Cursor(t, a, "/api/v2/clients"))...)
	crudtest.Rejects(t, env, a, "crew_members", cases)
}

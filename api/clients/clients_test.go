package clients_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

const path = "/api/v2/clients"

// storeClient creates a client of o through the store (fast, no HTTP).
func storeClient(t *testing.T, env *apitest.Env, o *apitest.Org, name string, email *string) string {
	t.Helper()
	var ch storage.Changes
	ch.Set("name", name)
	ch.Set("email", email)
	c, err := clients.Create(context.Background(), env.Svc.DB, o.Tenant(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID.String()
}

func TestClientLifecycle(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rec := crudtest.Lifecycle{
		Path: path,
		Create: map[string]any{
			"name": "Meridian Conference Center", "email": "events@meridiancc.example", "phone": "+1 206 555 0142",
			"address": "800 Convention Pl", "city": "Seattle", "state": "WA", "zip": "98101", "notes": "Dock 3 only after 6pm",
		},
		Defaults: map[string]any{"demo": false},
		Patch:    map[string]any{"name": "Meridian CC", "email": "ops@meridiancc.example", "city": "Bellevue"},
	}.Run(t, a)
	crudtest.PatchSemantics(t, env, a, b, crudtest.PatchRules{
		Item:     path + "/" + rec["id"].(string),
		Table:    "clients",
		Nullable: []string{"email", "phone", "address", "city", "state", "zip", "notes"},
		NotNull:  []string{"name"},
		Valid:    map[string]any{"name": "Hijacked"},
	})
}

func TestClientSearch(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	email := func(s string) *string { return &s }
	harbor := storeClient(t, env, a, "Harbor Lights Festival", email("production@harborlights.example"))
	meridian := storeClient(t, env, a, "Meridian Conference Center", email("events@HARBORVIEW.example"))
	northwind := storeClient(t, env, a, "Northwind 100% Events_Co", nil)
	storeClient(t, env, b, "Harbor Lights B", email("b@harbor.example"))
	tests := []struct {
		search string
		want   []string
	}{
		{"harbor", []string{harbor, meridian}},
		{"HARBOR", []string{harbor, meridian}},
		{"lights fest", []string{harbor}},
		{"harborview.EXAMPLE", []string{meridian}},
		{"northwind", []string{northwind}},
		{"100%", []string{northwind}},
		{"_co", []string{northwind}},
		{"%", []string{northwind}},
		{"50%", nil},
		{"zzz", nil},
		{"  meridian  ", []string{meridian}},
		// Within the name or the email, not across the two.
		{"festival production", nil},
		{"l p", nil},
	}
	for _, tt := range tests {
		got := crudtest.Walk(t, a, path+"?search="+url.QueryEscape(tt.search), 1, nil)
		if len(got) != len(tt.want) {
			t.Errorf("search %q: got %v, want %v", tt.search, got, tt.want)
			continue
		}
		crudtest.AssertExactlyOnce(t, got, tt.want)
	}
	if r := a.Get(path + "?search=" + strings.Repeat("x", 201)); r.Status != 422 || r.ErrorCode() != "validation_error" {
		t.Errorf("201-character search: %d %s", r.Status, r.Body)
	}
	crudtest.CursorsSurviveSpelling(t, a, path, "search", "harbor", "HARBOR", "\ufeffHarbor")
}

// TestClientPaging walks 150 clients 7 at a time, then again while a client
// is created after every page: each appears exactly once, in order.
func TestClientPaging(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	var want []string
	for i := range 150 {
		want = append(want, storeClient(t, env, a, fmt.Sprintf("client %03d", i), nil))
		if i%10 == 0 {
			storeClient(t, env, b, "other", nil)
		}
	}
	crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, path, 7, nil), want)
	got := crudtest.Walk(t, a, path, 7, func(page int) {
		want = append(want, storeClient(t, env, a, fmt.Sprintf("late %03d", page), nil))
		storeClient(t, env, b, "other late", nil)
	})
	crudtest.AssertExactlyOnce(t, got, want)
	// A search keeps its own cursor scope: paging a filtered list works too.
	filtered := crudtest.Walk(t, a, path+"?search=late", 7, nil)
	crudtest.AssertExactlyOnce(t, filtered, want[150:])
}

func TestClientScopes(t *testing.T) {
	env := apitest.New(t)
	tests := []struct {
		scope  tenancy.Scope
		method string
		path   string
		want   int
	}{
		{tenancy.ClientsRead, "GET", path, 200},
		{tenancy.ClientsRead, "GET", path + "/{id}", 200},
		{tenancy.ClientsRead, "POST", path, 403},
		{tenancy.ClientsRead, "PATCH", path + "/{id}", 403},
		{tenancy.ClientsWrite, "GET", path, 403},
		// A PATCH answers the record: it needs the read scope too.
		{tenancy.ClientsWrite, "PATCH", path + "/{id}", 403},
		{tenancy.EventsRead, "GET", path, 403},
	}
	for _, tt := range tests {
		o := env.NewOrgWithKey("S", apikey.Live, tt.scope)
		id := storeClient(t, env, o, "c", nil)
		r := o.Do(tt.method, strings.ReplaceAll(tt.path, "{id}", id), map[string]any{})
		if r.Status != tt.want || (tt.want == 403 && r.ErrorCode() != "insufficient_scope") {
			t.Errorf("%s %s with %s: %d %s, want %d", tt.method, tt.path, tt.scope, r.Status, r.ErrorCode(), tt.want)
		}
	}
}

func TestClientRejects(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	id := storeClient(t, env, a, "first", nil)
	storeClient(t, env, a, "second", nil)
	item := path + "/" + id
	bad := func(method, p, name, field string, body any) crudtest.Case {
		return crudtest.Case{Name: name, Method: method, Path: p, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	cases := []crudtest.Case{
		bad("POST", path, "missing name", "name", map[string]any{"email": "a@b.example"}),
		bad("POST", path, "empty body", "name", map[string]any{}),
		bad("POST", path, "blank name", "name", map[string]any{"name": " "}),
		bad("POST", path, "name number", "name", map[string]any{"name": 1}),
		bad("POST", path, "name object", "name", map[string]any{"name": map[string]any{"x": 1}}),
		bad("POST", path, "name null", "name", map[string]any{"name": nil}),
		bad("POST", path, "invalid email", "email", map[string]any{"name": "x", "email": "not-an-email"}),
		bad("POST", path, "email with display name", "email", map[string]any{"name": "x", "email": "Bob <bob@x.example>"}),
		bad("POST", path, "email without domain dot", "email", map[string]any{"name": "x", "email": "bob@localhost"}),
		bad("POST", path, "email number", "email", map[string]any{"name": "x", "email": 5}),
		bad("POST", path, "phone array", "phone", map[string]any{"name": "x", "phone": []string{"1"}}),
		bad("POST", path, "100 kB notes", "notes", map[string]any{"name": "x", "notes": strings.Repeat("n", 100<<10)}),
		bad("POST", path, "zip too long", "zip", map[string]any{"name": "x", "zip": strings.Repeat("9", 201)}),
		bad("PATCH", item, "patch invalid email", "email", map[string]any{"email": "@"}),
		bad("PATCH", item, "patch name empty", "name", map[string]any{"name": ""}),
		bad("PATCH", item, "patch city number", "city", map[string]any{"city": 3}),
		{Name: "patch unknown id", Method: "PATCH", Path: path + "/6f1c2a3e-0000-4000-8000-000000000000", Body: map[string]any{"name": "x"}, Status: 404, Code: "not_found"},
		{Name: "get detail expand", Method: "GET", Path: item + "?expand=events", Status: 422, Code: "validation_error", Field: "expand"},
	}
	cases = append(cases, crudtest.BodyCases("POST", path, "name")...)
	patch := crudtest.BodyCases("PATCH", item, "city")
	for i := range patch {
		patch[i].Name = "patch " + patch[i].Name
	}
	cases = append(cases, patch...)
	cases = append(cases, crudtest.ListCases(path, crudtest.Cursor(t, a, path), crudtest.Cursor(t, a, path+"?search=s"))...)
	crudtest.Rejects(t, env, a, "clients", cases)
}

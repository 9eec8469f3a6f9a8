package events_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

const path = "/api/v2/events"

func newClient(t *testing.T, o *apitest.Org, name string) string {
	t.Helper()
	r := o.Post("/api/v2/clients", map[string]any{"name": name})
	if r.Status != 201 {
		t.Fatalf("create client: %d %s", r.Status, r.Body)
	}
	return r.Data()["id"].(string)
}

func newEvent(t *testing.T, o *apitest.Org, body map[string]any) map[string]any {
	t.Helper()
	full := map[string]any{"name": "Gala", "start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4"}
	for k, v := range body {
		full[k] = v
	}
	r := o.Post(path, full)
	if r.Status != 201 {
		t.Fatalf("create event: %d %s", r.Status, r.Body)
	}
	return r.Data()
}

func TestEventLifecycle(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	client := newClient(t, a, "Harbor Lights")
	rec := crudtest.Lifecycle{
		Path: path,
		Create: map[string]any{
			"name": "Harbor Lights Festival", "start_date": "2026-07-10T16:00:00Z", "end_date": "2026-07-12T23:30:00Z",
			"venue": "Waterfront Park", "client_id": client, "description": "Main stage and two side stages", "notes": "Load-in via gate C",
		},
		Defaults: map[string]any{"status": "inquiry", "demo": false},
		Patch: map[string]any{
			"name": "Harbor Lights Festival 2026", "status": "confirmed", "venue": "Waterfront Park North",
			"end_date": "2026-07-13T01:00:00Z", "description": "Main stage only",
		},
	}.Run(t, a)

	t.Run("dates are UTC", func(t *testing.T) {
		e := newEvent(t, a, map[string]any{"start_date": "2026-06-01T20:00:00+02:00", "end_date": "2026-06-01T23:00:00-04:00"})
		if e["start_date"] != "2026-06-01T18:00:00Z" || e["end_date"] != "2026-06-02T03:00:00Z" {
			t.Errorf("dates not normalised to UTC: %v %v", e["start_date"], e["end_date"])
		}
	})

	t.Run("test key writes demo records", func(t *testing.T) {
		sandbox := env.NewOrgWithKey("Sandbox", apikey.Test, tenancy.AllScopes...)
		e := newEvent(t, sandbox, nil)
		if e["demo"] != true {
			t.Fatalf("event written with a test key: demo = %v", e["demo"])
		}
		if g := sandbox.Get(path + "/" + e["id"].(string)); g.Status != 200 || g.Data()["demo"] != true {
			t.Fatalf("GET: %d %s", g.Status, g.Body)
		}
	})

	t.Run("jobs alias", func(t *testing.T) {
		id := rec["id"].(string)
		g := a.Get("/api/v2/jobs/" + id)
		if g.Status != 200 || !crudtest.Same(g.Data(), rec) {
			t.Fatalf("GET /jobs/%s: %d %s", id, g.Status, g.Body)
		}
		if got := crudtest.Walk(t, a, "/api/v2/jobs", 100, nil); len(got) != len(crudtest.Walk(t, a, path, 100, nil)) {
			t.Errorf("/jobs lists %d, /events more or fewer", len(got))
		}
		if r := a.Patch("/api/v2/jobs/"+id, map[string]any{"name": "x"}); r.Status != 405 || r.ErrorCode() != "method_not_allowed" {
			t.Errorf("PATCH /jobs/{id}: %d %s", r.Status, r.Body)
		}
		if r := b.Get("/api/v2/jobs/" + id); r.Status != 404 {
			t.Errorf("B GET /jobs/{A's id}: %d", r.Status)
		}
	})

	crudtest.PatchSemantics(t, env, a, b, crudtest.PatchRules{
		Item:     path + "/" + rec["id"].(string),
		Table:    "events",
		Nullable: []string{"client_id", "description", "notes"},
		NotNull:  []string{"name", "status", "start_date", "end_date", "venue"},
		Valid:    map[string]any{"name": "Hijacked"},
	})
}

func TestEventStatusFilter(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	want := map[string][]string{}
	for i, st := range events.Statuses {
		for j := 0; j <= i%3; j++ {
			e := newEvent(t, a, map[string]any{"status": st, "name": fmt.Sprintf("%s %d", st, j)})
			want[st] = append(want[st], e["id"].(string))
		}
	}
	newEvent(t, b, map[string]any{"status": "confirmed"})
	for _, st := range events.Statuses {
		for _, p := range []string{path, "/api/v2/jobs"} {
			got := crudtest.Walk(t, a, p+"?status="+st, 2, nil)
			crudtest.AssertExactlyOnce(t, got, want[st])
		}
	}
}

func TestEventScopes(t *testing.T) {
	env := apitest.New(t)
	tests := []struct {
		scope  tenancy.Scope
		method string
		path   string
		want   int
	}{
		{tenancy.EventsRead, "GET", path, 200},
		{tenancy.EventsRead, "GET", path + "/{id}", 200},
		{tenancy.EventsRead, "GET", "/api/v2/jobs", 200},
		{tenancy.EventsRead, "GET", "/api/v2/jobs/{id}", 200},
		{tenancy.JobsRead, "GET", path, 200},
		{tenancy.JobsRead, "GET", path + "/{id}", 200},
		{tenancy.JobsRead, "GET", "/api/v2/jobs", 200},
		{tenancy.JobsRead, "GET", "/api/v2/jobs/{id}", 200},
		{tenancy.JobsRead, "POST", path, 403},
		{tenancy.JobsRead, "PATCH", path + "/{id}", 403},
		{tenancy.EventsRead, "POST", path, 403},
		{tenancy.EventsRead, "PATCH", path + "/{id}", 403},
		{tenancy.EventsWrite, "GET", path, 403},
		{tenancy.EventsWrite, "GET", "/api/v2/jobs/{id}", 403},
		// A PATCH answers the record: it needs the read scope too.
		{tenancy.EventsWrite, "PATCH", path + "/{id}", 403},
		{tenancy.ClientsRead, "GET", path, 403},
		{tenancy.CrewRead, "GET", "/api/v2/jobs", 403},
	}
	for _, tt := range tests {
		o := env.NewOrgWithKey("S", apikey.Live, tt.scope)
		id := storeEvent(t, env, o, 0)
		p := strings.ReplaceAll(tt.path, "{id}", id)
		r := o.Do(tt.method, p, map[string]any{})
		if r.Status != tt.want {
			t.Errorf("%s %s with %s: %d, want %d", tt.method, tt.path, tt.scope, r.Status, tt.want)
		}
		if tt.want == 403 && r.ErrorCode() != "insufficient_scope" {
			t.Errorf("%s %s with %s: code %q", tt.method, tt.path, tt.scope, r.ErrorCode())
		}
	}
}

// storeEvent creates event number i of o through the store (fast, no HTTP).
func storeEvent(t *testing.T, env *apitest.Env, o *apitest.Org, i int) string {
	t.Helper()
	var ch storage.Changes
	start := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	ch.Set("name", fmt.Sprintf("event %03d", i))
	ch.Set("start_date", start)
	ch.Set("end_date", start.Add(4*time.Hour))
	ch.Set("venue", "Hall")
	e, err := events.Create(context.Background(), env.Svc.DB, o.Tenant(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID.String()
}

// TestEventPaging walks 150 events 7 at a time, writing a new event after
// every page: each event appears exactly once, in creation order.
func TestEventPaging(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	create := func(o *apitest.Org, i int) string { return storeEvent(t, env, o, i) }
	var want []string
	for i := range 150 {
		want = append(want, create(a, i))
		if i%10 == 0 {
			create(b, i)
		}
	}
	crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, path, 7, nil), want)

	n := 150
	got := crudtest.Walk(t, a, "/api/v2/jobs", 7, func(int) {
		want = append(want, create(a, n))
		create(b, n)
		n++
	})
	crudtest.AssertExactlyOnce(t, got, want)
}

func TestEventRejects(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ownClient := newClient(t, a, "Own")
	foreignClient := newClient(t, b, "Foreign")
	e := newEvent(t, a, nil)
	newEvent(t, a, nil)
	item := path + "/" + e["id"].(string)
	valid := func(over map[string]any, drop ...string) map[string]any {
		m := map[string]any{"name": "Gala", "start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4", "client_id": ownClient}
		for k, v := range over {
			m[k] = v
		}
		for _, k := range drop {
			delete(m, k)
		}
		return m
	}
	bad := func(name, field string, body map[string]any) crudtest.Case {
		return crudtest.Case{Name: name, Path: path, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	badPatch := func(name, field string, body map[string]any) crudtest.Case {
		return crudtest.Case{Name: "patch " + name, Method: "PATCH", Path: item, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	cases := []crudtest.Case{
		bad("missing name", "name", valid(nil, "name")),
		bad("missing start_date", "start_date", valid(nil, "start_date")),
		bad("missing end_date", "end_date", valid(nil, "end_date")),
		bad("missing venue", "venue", valid(nil, "venue")),
		bad("empty body", "venue", map[string]any{}),
		bad("blank name", "name", valid(map[string]any{"name": "   "})),
		bad("name number", "name", valid(map[string]any{"name": 5})),
		bad("name null", "name", valid(map[string]any{"name": nil})),
		bad("start_date number", "start_date", valid(map[string]any{"start_date": 1717264800})),
		bad("start_date words", "start_date", valid(map[string]any{"start_date": "tomorrow"})),
		bad("start_date date only", "start_date", valid(map[string]any{"start_date": "2026-06-01"})),
		bad("end before start", "end_date", valid(map[string]any{"end_date": "2026-05-31T18:00:00Z"})),
		bad("end equals start", "end_date", valid(map[string]any{"end_date": "2026-06-01T18:00:00Z"})),
		bad("unknown status", "status", valid(map[string]any{"status": "done"})),
		bad("status number", "status", valid(map[string]any{"status": 3})),
		bad("client_id not uuid", "client_id", valid(map[string]any{"client_id": "abc"})),
		bad("client_id number", "client_id", valid(map[string]any{"client_id": 7})),
		bad("client_id of another org", "client_id", valid(map[string]any{"client_id": foreignClient})),
		bad("client_id unknown", "client_id", valid(map[string]any{"client_id": "6f1c2a3e-0000-4000-8000-000000000000"})),
		bad("100 kB notes", "notes", valid(map[string]any{"notes": string(make([]byte, 100<<10))})),
		bad("100 kB description", "description", valid(map[string]any{"description": fmt.Sprintf("%0102400d", 0)})),
		bad("venue too long", "venue", valid(map[string]any{"venue": fmt.Sprintf("%0301d", 0)})),
		badPatch("end before stored start", "end_date", map[string]any{"end_date": "2026-05-01T00:00:00Z"}),
		badPatch("start after stored end", "end_date", map[string]any{"start_date": "2026-06-03T00:00:00Z"}),
		badPatch("both inverted", "end_date", map[string]any{"start_date": "2026-09-03T00:00:00Z", "end_date": "2026-09-01T00:00:00Z"}),
		badPatch("unknown status", "status", map[string]any{"status": "archived"}),
		badPatch("client_id of another org", "client_id", map[string]any{"client_id": foreignClient}),
		badPatch("name number", "name", map[string]any{"name": false}),
		badPatch("name empty", "name", map[string]any{"name": ""}),
		badPatch("venue blank", "venue", map[string]any{"venue": "  "}),
		badPatch("start_date bad", "start_date", map[string]any{"start_date": "2026-13-01T00:00:00Z"}),
		{Name: "patch unknown id", Method: "PATCH", Path: path + "/6f1c2a3e-0000-4000-8000-000000000000", Body: map[string]any{"name": "x"}, Status: 404, Code: "not_found"},
		{Name: "patch unknown id with an unknown client", Method: "PATCH", Path: path + "/6f1c2a3e-0000-4000-8000-000000000000",
			Body: map[string]any{"client_id": "6f1c2a3e-0000-4000-8000-000000000001"}, Status: 404, Code: "not_found"},
		{Name: "get status filter unknown", Method: "GET", Path: path + "?status=done", Status: 422, Code: "validation_error", Field: "status"},
		{Name: "get jobs status filter unknown", Method: "GET", Path: "/api/v2/jobs?status=DONE", Status: 422, Code: "validation_error", Field: "status"},
		{Name: "get detail unknown expand", Method: "GET", Path: item + "?expand=client", Status: 422, Code: "validation_error", Field: "expand"},
	}
	cases = append(cases, crudtest.BodyCases("POST", path, "name")...)
	patchBody := crudtest.BodyCases("PATCH", item, "venue")
	for i := range patchBody {
		patchBody[i].Name = "patch " + patchBody[i].Name
	}
	cases = append(cases, patchBody...)
	newClient(t, a, "Second")
	cursor := crudtest.Cursor(t, a, path)
	cases = append(cases, crudtest.ListCases(path, cursor, crudtest.Cursor(t, a, path+"?status=inquiry"))...)
	jobs := crudtest.ListCases("/api/v2/jobs", cursor, crudtest.Cursor(t, a, "/api/v2/clients"))
	for i := range jobs {
		jobs[i].Name = "jobs " + jobs[i].Name
	}
	cases = append(cases, jobs...)
	crudtest.Rejects(t, env, a, "events", cases)

	t.Run("patch that keeps the window valid", func(t *testing.T) {
		r := a.Patch(item, map[string]any{"start_date": "2026-06-01T20:00:00Z"})
		if r.Status != 200 || r.Data()["start_date"] != "2026-06-01T20:00:00Z" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

package vehicles_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

const path = "/api/v2/vehicles"

// storeVehicle creates a vehicle of o with status through the store.
func storeVehicle(t *testing.T, env *apitest.Env, o *apitest.Org, name, status string) string {
	t.Helper()
	var ch storage.Changes
	ch.Set("name", name)
	ch.Set("status", status)
	v, err := vehicles.Create(context.Background(), env.Svc.DB, o.Tenant(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return v.ID.String()
}

func TestVehicleLifecycle(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rec := crudtest.Lifecycle{
		Path: path,
		Create: map[string]any{
			"name": "Box Truck 1", "model": "Isuzu FTR 26'", "license_plate": "WA C12345", "vehicle_type": "box_truck",
			"interior_length_inches": 312, "interior_width_inches": 96, "interior_height_inches": 102, "max_payload_lbs": 10000,
		},
		Defaults: map[string]any{"status": "available", "demo": false},
		Patch:    map[string]any{"name": "Box Truck A", "max_payload_lbs": 9800, "license_plate": "WA C54321"},
	}.Run(t, a)
	crudtest.PatchSemantics(t, env, a, b, crudtest.PatchRules{
		Item:  path + "/" + rec["id"].(string),
		Table: "vehicles",
		Nullable: []string{"model", "license_plate", "vehicle_type", "interior_length_inches", "interior_width_inches",
			"interior_height_inches", "max_payload_lbs"},
		NotNull: []string{"name", "status"},
		Valid:   map[string]any{"name": "Hijacked"},
	})
}

// TestVehicleListAvailable: the list holds only available vehicles of the
// organization; the detail answers for every status.
func TestVehicleListAvailable(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	var want []string
	other := map[string]string{}
	for i, st := range []string{"available", "in_use", "available", "maintenance", "retired", "available"} {
		id := storeVehicle(t, env, a, fmt.Sprintf("truck %d", i), st)
		if st == "available" {
			want = append(want, id)
		} else {
			other[id] = st
		}
		storeVehicle(t, env, b, "b truck", "available")
	}
	crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, path, 2, nil), want)
	for id, st := range other {
		if r := a.Get(path + "/" + id); r.Status != 200 || r.Data()["status"] != st {
			t.Errorf("GET %s vehicle: %d %s", st, r.Status, r.Body)
		}
	}
	// A vehicle leaving and re-entering available moves in and out of the list.
	if r := a.Patch(path+"/"+want[0], map[string]any{"status": "maintenance"}); r.Status != 200 {
		t.Fatalf("PATCH status: %d %s", r.Status, r.Body)
	}
	crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, path, 100, nil), want[1:])
	if r := a.Patch(path+"/"+want[0], map[string]any{"status": "available"}); r.Status != 200 {
		t.Fatalf("PATCH status: %d %s", r.Status, r.Body)
	}
	crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, path, 100, nil), want)
}

func TestAssignable(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ctx := context.Background()
	ok := storeVehicle(t, env, a, "ok", "available")
	tests := []struct {
		name string
		id   string
		ok   bool
	}{
		{"available", ok, true},
		{"in use", storeVehicle(t, env, a, "busy", "in_use"), false},
		{"maintenance", storeVehicle(t, env, a, "shop", "maintenance"), false},
		{"retired", storeVehicle(t, env, a, "old", "retired"), false},
		{"other organization", storeVehicle(t, env, b, "theirs", "available"), false},
		{"unknown", uuid.NewString(), false},
	}
	for _, tt := range tests {
		err := vehicles.Assignable(ctx, env.Svc.DB, a.OrgID(), uuid.MustParse(tt.id))
		if tt.ok {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		e := errs.As(err)
		if err == nil || e.Code != errs.Validation {
			t.Errorf("%s: got %v, want validation_error", tt.name, err)
			continue
		}
		if d, _ := e.Details.(errs.ValidationDetails); len(d.Fields) != 1 || d.Fields[0].Field != "vehicle_id" {
			t.Errorf("%s: details %+v do not name vehicle_id", tt.name, e.Details)
		}
	}
}

func TestVehicleScopes(t *testing.T) {
	env := apitest.New(t)
	tests := []struct {
		scope  tenancy.Scope
		method string
		path   string
		want   int
	}{
		{tenancy.EquipmentReservationsRead, "GET", path, 200},
		{tenancy.EquipmentReservationsRead, "GET", path + "/{id}", 200},
		{tenancy.EquipmentReservationsRead, "POST", path, 403},
		{tenancy.EquipmentReservationsRead, "PATCH", path + "/{id}", 403},
		{tenancy.EquipmentReservationsWrite, "GET", path, 403},
		// A PATCH answers the record: it needs the read scope too.
		{tenancy.EquipmentReservationsWrite, "PATCH", path + "/{id}", 403},
		{tenancy.EquipmentRead, "GET", path, 403},
		{tenancy.EquipmentWrite, "POST", path, 403},
	}
	for _, tt := range tests {
		o := env.NewOrgWithKey("S", apikey.Live, tt.scope)
		id := storeVehicle(t, env, o, "v", "available")
		r := o.Do(tt.method, strings.ReplaceAll(tt.path, "{id}", id), map[string]any{})
		if r.Status != tt.want || (tt.want == 403 && r.ErrorCode() != "insufficient_scope") {
			t.Errorf("%s %s with %s: %d %s, want %d", tt.method, tt.path, tt.scope, r.Status, r.ErrorCode(), tt.want)
		}
	}
}

func TestVehicleRejects(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	id := storeVehicle(t, env, a, "one", "available")
	storeVehicle(t, env, a, "two", "available")
	item := path + "/" + id
	bad := func(method, p, name, field string, body any) crudtest.Case {
		return crudtest.Case{Name: name, Method: method, Path: p, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	cases := []crudtest.Case{
		bad("POST", path, "missing name", "name", map[string]any{"model": "x"}),
		bad("POST", path, "empty body", "name", map[string]any{}),
		bad("POST", path, "name number", "name", map[string]any{"name": 12}),
		bad("POST", path, "unknown status", "status", map[string]any{"name": "t", "status": "parked"}),
		bad("POST", path, "status null", "status", map[string]any{"name": "t", "status": nil}),
		bad("POST", path, "length zero", "interior_length_inches", map[string]any{"name": "t", "interior_length_inches": 0}),
		bad("POST", path, "width negative", "interior_width_inches", map[string]any{"name": "t", "interior_width_inches": -96}),
		bad("POST", path, "height fraction", "interior_height_inches", map[string]any{"name": "t", "interior_height_inches": 96.5}),
		bad("POST", path, "payload string", "max_payload_lbs", map[string]any{"name": "t", "max_payload_lbs": "10000"}),
		bad("POST", path, "payload huge", "max_payload_lbs", map[string]any{"name": "t", "max_payload_lbs": 1e12}),
		bad("POST", path, "100 kB model", "model", map[string]any{"name": "t", "model": strings.Repeat("m", 100<<10)}),
		bad("PATCH", item, "patch unknown status", "status", map[string]any{"status": "AVAILABLE"}),
		bad("PATCH", item, "patch payload zero", "max_payload_lbs", map[string]any{"max_payload_lbs": 0}),
		bad("PATCH", item, "patch name empty", "name", map[string]any{"name": ""}),
		{Name: "patch unknown id", Method: "PATCH", Path: path + "/6f1c2a3e-0000-4000-8000-000000000000", Body: map[string]any{"name": "x"}, Status: 404, Code: "not_found"},
		{Name: "get detail expand", Method: "GET", Path: item + "?expand=reservations", Status: 422, Code: "validation_error", Field: "expand"},
	}
	cases = append(cases, crudtest.BodyCases("POST", path, "name")...)
	patch := crudtest.BodyCases("PATCH", item, "vehicle_type")
	for i := range patch {
		patch[i].Name = "patch " + patch[i].Name
	}
	cases = append(cases, patch...)
	for _, n := range []string{"c1", "c2"} {
		a.Post("/api/v2/clients", map[string]any{"name": n})
	}
	cases = append(cases, crudtest.ListCases(path, crudtest.Cursor(t, a, path), crudtest.Cursor(t, a, "/api/v2/clients"))...)
	crudtest.Rejects(t, env, a, "vehicles", cases)
}

package reservations_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestOverrideFieldsAsTyped: the override fields take what the OpenAPI
// document types them as. force_overbook is a boolean: null is 422 on
// POST and PATCH, naming it, and nothing is written (it was read as false
// without a word). overbook_reason is at most 1000 characters, a 422 on
// overbook_reason before the reason rule (body first). A null
// overbook_cost_ownership names no one: it asks for nothing on a write that
// stores no override, and clears the stored one on a re-stated override.
func TestOverrideFieldsAsTyped(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Wedge monitor", bookingtest.Stock(1), nil)
	long, limit := strings.Repeat("r", 1001), strings.Repeat("r", 1000)

	refused := []struct {
		name   string
		body   map[string]any
		code   string
		fields string
	}{
		{"force null", body("force_overbook", nil), "validation_error", "force_overbook"},
		{"force null with a reason", body("force_overbook", nil, "overbook_reason", "sub-hire"), "validation_error", "force_overbook"},
		{"force null beside a bad quantity", body("force_overbook", nil, "quantity", 0), "validation_error", "quantity,force_overbook"},
		{"reason 1001", body("overbook_reason", long), "validation_error", "overbook_reason"},
		{"forced reason 1001", body("force_overbook", true, "overbook_reason", long), "validation_error", "overbook_reason"},
	}
	for _, tt := range refused {
		t.Run("post "+tt.name, func(t *testing.T) {
			res := a.Post(base, reserve(eq, 1, 2, flat(tt.body)...))
			want(t, res, 422, tt.code)
			if got := fields(res); got != tt.fields {
				t.Errorf("fields = %q, want %q", got, tt.fields)
			}
			if n := rows.Count("equipment_reservations"); n != 0 {
				t.Fatalf("%d reservations written", n)
			}
		})
	}

	forced := a.Post(base, reserve(eq, 1, 2, "quantity", 2, "force_overbook", true, "overbook_reason", limit,
		"overbook_cost_ownership", "absorbed"))
	if forced.Status != 201 || forced.Data()["overbook_reason"] != limit {
		t.Fatalf("a reason of 1000 characters: %d %s", forced.Status, forced.Body)
	}
	id := forced.Data()["id"].(string)
	before := string(a.Get(base + "/" + id).Body)
	for _, tt := range refused {
		t.Run("patch "+tt.name, func(t *testing.T) {
			res := a.Patch(base+"/"+id, tt.body)
			want(t, res, 422, tt.code)
			if got := fields(res); got != tt.fields {
				t.Errorf("fields = %q, want %q", got, tt.fields)
			}
			if after := string(a.Get(base + "/" + id).Body); after != before {
				t.Fatalf("record changed:\n%s\n%s", before, after)
			}
		})
	}

	// A null cost ownership without force_overbook stores nothing; it is
	// named only where it differs from what is stored.
	p := a.Patch(base+"/"+id, body("overbook_cost_ownership", nil))
	if p.Status != 200 || p.Data()["overbook_cost_ownership"] != "absorbed" || !ignored(p, "overbook_cost_ownership") {
		t.Fatalf("null without force: %d %s", p.Status, p.Body)
	}
	// Re-stated with force_overbook, null clears it, as a value replaces it.
	p = a.Patch(base+"/"+id, body("force_overbook", true, "overbook_reason", "house pays", "overbook_cost_ownership", nil))
	if p.Status != 200 || p.Data()["overbook_cost_ownership"] != nil || p.Data()["overbook_reason"] != "house pays" ||
		p.JSON()["warnings"] != nil {
		t.Fatalf("null re-stated: %d %s", p.Status, p.Body)
	}
	if g := a.Get(base + "/" + id).Data(); g["overbook_cost_ownership"] != nil {
		t.Errorf("stored cost ownership %v, want null", g["overbook_cost_ownership"])
	}
	other := rows.Equipment("Spare wedge", bookingtest.Stock(5), nil)
	if res := a.Post(base, reserve(other, 1, 2, "overbook_cost_ownership", nil)); res.Status != 201 ||
		res.Data()["overbook_cost_ownership"] != nil || res.JSON()["warnings"] != nil {
		t.Fatalf("null on create: %d %s", res.Status, res.Body)
	}
}

// TestWarnModeStoresOnlyAForcedOverride: in warn mode a write over stock
// without force_overbook is let through with overbooked: true and no
// override: neither a reason nor a cost ownership is stored, and both are
// named in ignored_fields (docs/decisions.md). The cost ownership was stored.
// Forced, both are stored and nothing is ignored.
func TestWarnModeStoresOnlyAForcedOverride(t *testing.T) {
	env := newEnv(t)
	o := orgWithMode(t, env, "Warn", tenancy.StockGuardWarn)
	rows := bookingtest.For(env, o)
	tests := []struct {
		name      string
		override  []any
		ownership any
		reason    any
		ignored   []string
	}{
		{"ownership alone", []any{"overbook_cost_ownership", "new_customer"}, nil, nil, []string{"overbook_cost_ownership"}},
		{"force false", []any{"force_overbook", false, "overbook_cost_ownership", "absorbed", "overbook_reason", "why not"},
			nil, nil, []string{"overbook_cost_ownership", "overbook_reason"}},
		{"null ownership", []any{"overbook_cost_ownership", nil}, nil, nil, nil},
		{"forced", []any{"force_overbook", true, "overbook_reason", "sub-hire", "overbook_cost_ownership", "absorbed"},
			"absorbed", "sub-hire", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eq := rows.Equipment("Sub "+tt.name, bookingtest.Stock(1), nil)
			check := func(what string, res *apitest.Response, id string) {
				t.Helper()
				d, stored := res.Data(), o.Get(base+"/"+id).Data()
				if d["overbooked"] != true || d["overbook_cost_ownership"] != tt.ownership || d["overbook_reason"] != tt.reason ||
					stored["overbook_cost_ownership"] != tt.ownership {
					t.Errorf("%s: answered %v, stored %v", what, d, stored)
				}
			}
			res := o.Post(base, reserve(eq, 1, 2, append([]any{"quantity", 2}, tt.override...)...))
			if res.Status != 201 || !ignoredExactly(res, tt.ignored) {
				t.Fatalf("create: %d %s", res.Status, res.Body)
			}
			id := res.Data()["id"].(string)
			check("create", res, id)

			// The same override on a PATCH that asks for more stock.
			p := o.Patch(base+"/"+id, body(append([]any{"quantity", 3}, tt.override...)...))
			if p.Status != 200 || !ignoredExactly(p, tt.ignored) {
				t.Fatalf("patch: %d %s", p.Status, p.Body)
			}
			check("patch", p, id)
		})
	}
}

// ignoredExactly is ignored, and for no fields: no ignored_fields warning.
func ignoredExactly(res *apitest.Response, fields []string) bool {
	if len(fields) > 0 {
		return ignored(res, fields...)
	}
	ws, _ := res.JSON()["warnings"].([]any)
	for _, w := range ws {
		if w.(map[string]any)["code"] == "ignored_fields" {
			return false
		}
	}
	return true
}

// flat turns a body back into the key-value list reserve takes.
func flat(m map[string]any) []any {
	var kv []any
	for k, v := range m {
		kv = append(kv, k, v)
	}
	return kv
}

package rest_test

import (
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestInvisibleAndBrokenUnicode: a lone surrogate escape is 400
// malformed_json like invalid UTF-8 (it would be stored as U+FFFD), a
// required name showing nothing (zero-width characters) is "must not be
// empty", and nothing is stored; a real pair and a visible name pass.
func TestInvisibleAndBrokenUnicode(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Unicode")
	tests := []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"lone high surrogate", "/api/v2/clients", `{"name":"x\ud800y"}`, 400, "malformed_json", ""},
		{"lone low surrogate", "/api/v2/clients", `{"name":"\udc00"}`, 400, "malformed_json", ""},
		{"zero-width space only", "/api/v2/clients", `{"name":"\u200b"}`, 422, "validation_error", "name"},
		{"byte order mark and word joiner", "/api/v2/crew_members", `{"first_name":"Ann","last_name":"\ufeff\u2060"}`, 422, "validation_error", "last_name"},
		{"a surrogate pair", "/api/v2/clients", `{"name":"Grin \ud83d\ude00"}`, 201, "", ""},
		{"visible after a zero-width space", "/api/v2/clients", `{"name":"\u200bAcme"}`, 201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.Send(apitest.Request{Method: "POST", Path: tt.path, Key: a.Key, Body: tt.body,
				Headers: map[string]string{"Content-Type": "application/json"}})
			if r.Status != tt.status || (tt.code != "" && r.ErrorCode() != tt.code) {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Body, tt.status, tt.code)
			}
			if tt.field != "" && issues(r)[tt.field] != "must not be empty" {
				t.Fatalf("issues %v, want %s: must not be empty", issues(r), tt.field)
			}
		})
	}
	if r := a.Get("/api/v2/clients?limit=100"); len(r.List()) != 2 {
		t.Fatalf("%d clients stored, want the 2 accepted: %s", len(r.List()), r.Body)
	}
}

// TestLineItemWithoutAVisibleDescription: a line item's description that
// shows nothing is missing, as a required name's is, and a line item's bad
// fields are named together; no quote is stored.
func TestLineItemWithoutAVisibleDescription(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Lines")
	const required = "is required when equipment_id is not set"
	tests := []struct {
		name, body string
		fields     []string
	}{
		{"zero-width space", `{"title":"q","line_items":[{"description":"\u200b","quantity":1,"unit_price":1}]}`,
			[]string{"line_items[0].description"}},
		{"empty, and a quantity of 0", `{"title":"q","line_items":[{"description":"","quantity":0,"unit_price":1}]}`,
			[]string{"line_items[0].description", "line_items[0].quantity"}},
		{"not a uuid: the description is not required", `{"title":"q","line_items":[{"equipment_id":"x","quantity":1,"unit_price":1}]}`,
			[]string{"line_items[0].equipment_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/quotes", Key: a.Key, Body: tt.body,
				Headers: map[string]string{"Content-Type": "application/json"}})
			got := issues(r)
			if r.Status != 422 || len(got) != len(tt.fields) {
				t.Fatalf("%d %s, want 422 naming %v", r.Status, r.Body, tt.fields)
			}
			for _, f := range tt.fields {
				if _, ok := got[f]; !ok {
					t.Errorf("issues %v, want %s", got, f)
				}
			}
			if d, ok := got["line_items[0].description"]; ok && d != required {
				t.Errorf("description: %q, want %q", d, required)
			}
		})
	}
	if r := a.Get("/api/v2/quotes"); len(r.List()) != 0 {
		t.Fatalf("%d quotes stored, want none: %s", len(r.List()), r.Body)
	}
}

// TestTextIsComposed: text is kept in NFC, so a category name sent with a
// combining accent is the name sent composed (409 duplicate_record), both
// spellings find it as the equipment filter, and it reads back composed.
func TestTextIsComposed(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Composed")
	const composed, decomposed = "Caf\u00e9 lights", "Cafe\u0301 lights"
	cat := a.Post("/api/v2/equipment_categories", map[string]any{"name": decomposed})
	if cat.Status != 201 || cat.Data()["name"] != composed {
		t.Fatalf("create with a combining accent: %d %s, want 201 named %q", cat.Status, cat.Body, composed)
	}
	id, _ := cat.Data()["id"].(string)
	if r := a.Post("/api/v2/equipment_categories", map[string]any{"name": composed}); r.Status != 409 || r.ErrorCode() != "duplicate_record" {
		t.Fatalf("create composed: %d %s, want 409 duplicate_record", r.Status, r.Body)
	}
	if r := a.Get("/api/v2/equipment_categories/" + id); r.Data()["name"] != composed {
		t.Fatalf("read back: %s, want %q", r.Body, composed)
	}
	item := a.Post("/api/v2/equipment", map[string]any{"name": "Par can", "category_id": id, "stock_quantity": 1})
	if item.Status != 201 {
		t.Fatalf("equipment: %d %s", item.Status, item.Body)
	}
	for _, name := range []string{composed, decomposed} {
		r := a.Get("/api/v2/equipment?category=" + url.QueryEscape(name))
		if len(r.List()) != 1 {
			t.Errorf("?category=%q: %s, want the one item", name, r.Body)
		}
	}
	// A PATCH sending the name decomposed changes nothing.
	before := a.Get("/api/v2/equipment_categories/" + id).Data()["updated_at"]
	if r := a.Patch("/api/v2/equipment_categories/"+id, map[string]any{"name": decomposed}); r.Status != 200 || r.Data()["updated_at"] != before {
		t.Fatalf("PATCH with the decomposed name: %d %s, want 200 with updated_at %v", r.Status, r.Body, before)
	}
}

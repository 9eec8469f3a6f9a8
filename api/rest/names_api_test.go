package rest_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestARepeatedNameIsRefused: a body naming a member twice in one object is
// 400 malformed_json on POST and PATCH, nothing is written, and a keyed
// retry without the repetition is another request, not a replay of the 400.
func TestARepeatedNameIsRefused(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Repeated")
	client := a.Post("/api/v2/clients", map[string]any{"name": "Acme"})
	if client.Status != 201 {
		t.Fatalf("create: %d %s", client.Status, client.Body)
	}
	id, _ := client.Data()["id"].(string)
	tests := []struct {
		name, method, path, body, says string
	}{
		{"POST, top level", "POST", "/api/v2/clients", `{"name":"One","name":"Two"}`, `"name" more than once in the top-level object`},
		{"POST, an escaped spelling", "POST", "/api/v2/clients", `{"name":"One","n\u0061me":"Two"}`, `"name" more than once`},
		{"POST, in a line item", "POST", "/api/v2/quotes",
			`{"title":"q","line_items":[{"description":"a","quantity":1,"quantity":2,"unit_price":1}]}`,
			`"quantity" more than once in the object at /line_items/0`},
		{"PATCH", "PATCH", "/api/v2/clients/" + id, `{"name":"One","name":"Two"}`, `"name" more than once`},
		{"PATCH, an unknown field", "PATCH", "/api/v2/clients/" + id, `{"extra":1,"extra":2}`, `"extra" more than once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.Send(apitest.Request{Method: tt.method, Path: tt.path, Key: a.Key, Body: tt.body})
			msg, _ := r.JSON()["error"].(map[string]any)["message"].(string)
			if r.Status != 400 || r.ErrorCode() != "malformed_json" || !strings.Contains(msg, tt.says) {
				t.Fatalf("%d %s, want 400 malformed_json saying %s", r.Status, r.Body, tt.says)
			}
		})
	}
	if r := a.Get("/api/v2/clients"); len(r.List()) != 1 || r.List()[0]["name"] != "Acme" {
		t.Fatalf("clients after the refusals: %s", r.Body)
	}
	if r := a.Get("/api/v2/quotes"); len(r.List()) != 0 {
		t.Fatalf("quotes after the refusal: %s", r.Body)
	}

	const key = "repeated-name-retry"
	first := a.Do("POST", "/api/v2/clients", `{"name":"Keyed","name":"Keyed"}`, "Idempotency-Key", key)
	if first.Status != 400 {
		t.Fatalf("keyed, repeated: %d %s", first.Status, first.Body)
	}
	// The same name once is not the same request: the fingerprint takes a
	// body with a repeated name as its bytes.
	if r := a.Do("POST", "/api/v2/clients", `{"name":"Keyed"}`, "Idempotency-Key", key); r.Status != 409 || r.ErrorCode() != "idempotency_key_mismatch" {
		t.Fatalf("keyed retry without the repetition: %d %s, want 409 idempotency_key_mismatch", r.Status, r.Body)
	}
}

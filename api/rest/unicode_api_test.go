package rest_test

import (
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

package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestWrongMethods pins the server's answer to a method a path does not
// serve, known (DELETE) or unknown (FOO), on v2 and v1: 405 with Allow
// naming the path's methods, in the surface's envelope (v2: its details
// repeat Allow), and 404 on a path no route serves, whatever the method
// but an unknown one, which is 405 with an empty Allow. Every 405 comes from
// the server's fallback or its refusal of unknown methods, never from Fiber
// (whose 405 names no method: rest.FromFiber).
func TestWrongMethods(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Wrong methods")
	equipment := "/api/v1/equipment/" + uuid.NewString()
	tests := []struct {
		method, path string
		status       int
		code         string
		allow        string // "" : no Allow header, or an empty one
	}{
		{"DELETE", "/api/v2/clients", 405, "method_not_allowed", "GET, HEAD, POST"},
		{"FOO", "/api/v2/clients", 405, "method_not_allowed", "GET, HEAD, POST"},
		{"PUT", "/api/v2/clients/" + uuid.NewString(), 405, "method_not_allowed", "GET, HEAD, PATCH"},
		{"DELETE", "/api/v2/nothing", 404, "not_found", ""},
		{"FOO", "/api/v2/nothing", 405, "method_not_allowed", ""},
		{"DELETE", equipment, 405, "METHOD_NOT_ALLOWED", "GET, HEAD, PATCH"},
		{"FOO", equipment, 405, "METHOD_NOT_ALLOWED", "GET, HEAD, PATCH"},
		{"POST", "/api/v1/equipment", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"DELETE", "/api/v1/nothing", 404, "NOT_FOUND", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := a.Do(tt.method, tt.path, nil)
			if r.Status != tt.status || r.Header.Get("Allow") != tt.allow {
				t.Fatalf("%d Allow %q %s, want %d Allow %q", r.Status, r.Header.Get("Allow"), r.Body, tt.status, tt.allow)
			}
			e, _ := r.JSON()["error"].(map[string]any)
			if e == nil || e["code"] != tt.code {
				t.Fatalf("body %s, want the envelope of %s", r.Body, tt.code)
			}
			msg, _ := e["message"].(string)
			if tt.status == 405 && !strings.Contains(msg, tt.method) {
				t.Errorf("message %q names no %s", msg, tt.method)
			}
			if strings.HasPrefix(tt.path, "/api/v1/") {
				if _, ok := e["details"]; ok || len(e) != 2 {
					t.Errorf("the v1 envelope has a code and a message only: %s", r.Body)
				}
				return
			}
			if tt.status != 405 {
				return
			}
			details, _ := e["details"].(map[string]any)
			listed, _ := details["allow"].([]any)
			var got []string
			for _, m := range listed {
				s, _ := m.(string)
				got = append(got, s)
			}
			want := strings.Split(tt.allow, ", ")
			if tt.allow == "" {
				want = nil
			}
			if details == nil || !slices.Equal(got, want) {
				t.Errorf("details %v, want allow %q", e["details"], want)
			}
		})
	}
	// A method Allow lists is served.
	if r := a.Get("/api/v2/clients"); r.Status != http.StatusOK {
		t.Errorf("GET /api/v2/clients: %d %s", r.Status, r.Body)
	}
}

package events_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

// TestBodyIssuesNameEveryField pins the order of checks (docs/decisions.md):
// the body's 422 names every bad field, a client_id that is not a uuid
// among them, beside any other; a well-formed client_id that names no
// client of the organization is a reference check, made only once the body
// is valid. Nothing is written either way.
func TestBodyIssuesNameEveryField(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	foreign := newClient(t, b, "Foreign")
	item := path + "/" + newEvent(t, a, nil)["id"].(string)
	valid := map[string]any{"name": "Gala", "start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range valid {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name, method, path string
		body               map[string]any
		fields             string
	}{
		{"blank name, client_id not a uuid", "POST", path, with("name", " ", "client_id", "abc"), "name,client_id"},
		{"blank name, client_id a number", "POST", path, with("name", " ", "client_id", 7), "name,client_id"},
		{"blank name, client_id empty", "POST", path, with("name", " ", "client_id", ""), "name,client_id"},
		{"inverted window, client_id not a uuid", "POST", path, with("end_date", "2026-05-01T00:00:00Z", "client_id", "abc"), "client_id,end_date"},
		{"blank name, foreign client_id", "POST", path, with("name", " ", "client_id", foreign), "name"},
		{"foreign client_id alone", "POST", path, with("client_id", foreign), "client_id"},
		{"patch blank name, client_id not a uuid", "PATCH", item, map[string]any{"name": "", "client_id": "abc"}, "name,client_id"},
		{"patch blank name, foreign client_id", "PATCH", item, map[string]any{"name": "", "client_id": foreign}, "name"},
		{"patch blank name, both dates inverted", "PATCH", item, map[string]any{"name": "", "start_date": "2026-06-03T00:00:00Z", "end_date": "2026-06-01T00:00:00Z"}, "name,end_date"},
	}
	before := string(a.Get(path).Body)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do(tt.method, tt.path, tt.body)
			if res.Status != 422 || res.ErrorCode() != "validation_error" {
				t.Fatalf("want 422 validation_error, got %d %s", res.Status, res.Body)
			}
			if got := strings.Join(crudtest.Fields(res), ","); got != tt.fields {
				t.Errorf("fields = %q, want %q: %s", got, tt.fields, res.Body)
			}
			if after := string(a.Get(path).Body); after != before {
				t.Fatalf("events changed:\n%s\n%s", before, after)
			}
		})
	}
}

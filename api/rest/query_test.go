package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestRepeatedQueryParameters: a query parameter given twice is refused,
// naming it (once however often it repeats), on v2 (422 validation_error)
// and v1 (400 BAD_REQUEST in the v1 envelope); the first value was read and
// the others dropped without a word. A single value of each, and an empty
// name, pass.
func TestRepeatedQueryParameters(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Repeats")
	x, y := uuid.NewString(), uuid.NewString()
	long := strings.Repeat("a", 3900)
	for _, c := range []struct {
		path   string
		status int
		fields []string
		issue  string
	}{
		{"/api/v2/availability?equipment_id=" + x + "&equipment_id=" + y + "&start=2026-06-01T00:00:00Z&end=2026-06-02T00:00:00Z",
			http.StatusUnprocessableEntity, []string{"equipment_id"}, rest.RepeatedListParamIssue},
		{"/api/v2/clients?limit=5&limit=100&cursor=a&limit=7&cursor=b", http.StatusUnprocessableEntity, []string{"limit", "cursor"}, rest.RepeatedParamIssue},
		{"/api/v2/pick_lists?expand=items&expand=equipment", http.StatusUnprocessableEntity, []string{"expand"}, rest.RepeatedListParamIssue},
		{"/api/v1/equipment?page=1&page=2", http.StatusBadRequest, []string{"page"}, rest.RepeatedParamIssue},
		{"/api/v1/equipment?limit=5&limit=200", http.StatusBadRequest, []string{"limit"}, rest.RepeatedParamIssue},
		{"/api/v1/jobs?status=active&status=draft", http.StatusBadRequest, []string{"status"}, rest.RepeatedParamIssue},
		// A name is repeated back at most errs.MaxEcho bytes long, here
		// and in the v1 message (docs/decisions.md, "Errors repeat at
		// most 128 bytes of the request").
		{"/api/v2/clients?" + long + "=1&" + long + "=2", http.StatusUnprocessableEntity, []string{errs.Echo(long)}, rest.RepeatedParamIssue},
		{"/api/v1/equipment?" + long + "=1&" + long + "=2", http.StatusBadRequest, []string{errs.Echo(long)}, rest.RepeatedParamIssue},
		{"/api/v2/clients?limit=5&expand=&=1&=2", http.StatusOK, nil, ""},
		{"/api/v1/equipment?page=1&limit=5", http.StatusOK, nil, ""},
		// An unknown path keeps its 404 (a repeated parameter is no reason
		// to answer for a route that does not exist).
		{"/api/v2/nope?a=1&a=2", http.StatusNotFound, nil, ""},
		{"/api/v1/nope?a=1&a=2", http.StatusNotFound, nil, ""},
	} {
		r := a.Get(c.path)
		if c.status == http.StatusNotFound && r.Status == http.StatusNotFound {
			continue
		}
		if r.Status != c.status {
			t.Errorf("GET %s: %d %s, want %d", c.path, r.Status, r.Body, c.status)
			continue
		}
		if c.fields == nil {
			continue
		}
		if strings.HasPrefix(c.path, "/api/v1/") { // the v1 envelope: a code and a message
			e, _ := r.JSON()["error"].(map[string]any)
			if msg, _ := e["message"].(string); e["code"] != "BAD_REQUEST" || msg != c.fields[0]+": "+c.issue {
				t.Errorf("GET %s: %s, want BAD_REQUEST with %q", c.path, r.Body, c.fields[0]+": "+c.issue)
			}
			continue
		}
		got := issues(r)
		if r.ErrorCode() != "validation_error" || len(got) != len(c.fields) {
			t.Errorf("GET %s names %v, want a validation_error naming %v (%s)", c.path, got, c.fields, r.Body)
		}
		for _, f := range c.fields {
			if got[f] != c.issue {
				t.Errorf("GET %s: %s has %q, want %q (%s)", c.path, f, got[f], c.issue, r.Body)
			}
		}
	}
}

// TestRepeatedParametersKeep405: a method the path does not serve is still
// 405 with Allow when a query parameter repeats.
func TestRepeatedParametersKeep405(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Methods")
	r := a.Do(http.MethodPut, "/api/v2/equipment?a=1&a=2", map[string]any{})
	if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") == "" {
		t.Fatalf("PUT with a repeated parameter: %d %s (Allow %q), want 405 with Allow", r.Status, r.Body, r.Header.Get("Allow"))
	}
}

// TestEmptyFilterValues: a filter given with an empty value is a bad value,
// not an absent filter (a query built from a missing variable must not list
// everything), on v2 (422 naming it) and v1 (400); absent, it filters
// nothing.
func TestEmptyFilterValues(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Empty filters")
	for _, c := range []struct {
		path   string
		status int
		field  string
	}{
		{"/api/v2/equipment_reservations?vehicle_id=", http.StatusUnprocessableEntity, "vehicle_id"},
		{"/api/v2/events?status=", http.StatusUnprocessableEntity, "status"},
		{"/api/v2/pick_lists?archived=", http.StatusUnprocessableEntity, "archived"},
		{"/api/v1/jobs?status=", http.StatusBadRequest, "status"},
		{"/api/v2/equipment_reservations", http.StatusOK, ""},
		{"/api/v2/events", http.StatusOK, ""},
		{"/api/v2/pick_lists", http.StatusOK, ""},
		{"/api/v1/jobs", http.StatusOK, ""},
	} {
		r := a.Get(c.path)
		if r.Status != c.status {
			t.Errorf("GET %s: %d %s, want %d", c.path, r.Status, r.Body, c.status)
			continue
		}
		if c.field == "" {
			continue
		}
		if strings.HasPrefix(c.path, "/api/v1/") {
			if !strings.Contains(string(r.Body), c.field) {
				t.Errorf("GET %s: %s, want a 400 naming %s", c.path, r.Body, c.field)
			}
			continue
		}
		if _, ok := issues(r)[c.field]; !ok || r.ErrorCode() != "validation_error" {
			t.Errorf("GET %s: %s, want a validation_error naming %s", c.path, r.Body, c.field)
		}
	}
}

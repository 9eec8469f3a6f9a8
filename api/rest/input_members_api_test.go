package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestBodyMemberBound: a body whose object has rest.MaxMembers members is
// read (a POST's unknown fields counted, a PATCH's ignored), and one of
// more is 400 malformed_json, on POST and PATCH alike, with nothing
// written.
func TestBodyMemberBound(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Members")
	body := func(name string, members int) string {
		parts := []string{fmt.Sprintf(`"name":%q`, name)}
		for i := 1; i < members; i++ {
			parts = append(parts, fmt.Sprintf(`"x%d":1`, i))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	names := func() []string {
		var out []string
		for _, c := range a.Get("/api/v2/clients?limit=100").List() {
			out = append(out, c["name"].(string))
		}
		return out
	}
	created := a.Post("/api/v2/clients", map[string]any{"name": "Kept"})
	if created.Status != 201 {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	id, _ := created.Data()["id"].(string)
	const refused = "the request body has more than 1,000 members in the top-level object; an object may have at most 1,000 members"

	t.Run("POST over the bound", func(t *testing.T) {
		r := a.Do("POST", "/api/v2/clients", body("Over", rest.MaxMembers+1))
		if r.Status != 400 || r.ErrorCode() != "malformed_json" || r.ErrorMessage() != refused {
			t.Fatalf("%d %.300s", r.Status, r.Body)
		}
		if got := names(); len(got) != 1 || got[0] != "Kept" {
			t.Errorf("clients after the refusal: %q", got)
		}
	})
	t.Run("PATCH over the bound", func(t *testing.T) {
		r := a.Do("PATCH", "/api/v2/clients/"+id, body("Changed", rest.MaxMembers+1))
		if r.Status != 400 || r.ErrorCode() != "malformed_json" || r.ErrorMessage() != refused {
			t.Fatalf("%d %.300s", r.Status, r.Body)
		}
		if got := a.Get("/api/v2/clients/" + id).Data()["name"]; got != "Kept" {
			t.Errorf("name after the refusal: %v", got)
		}
	})
	t.Run("POST at the bound", func(t *testing.T) {
		r := a.Do("POST", "/api/v2/clients", body("At", rest.MaxMembers))
		fields, _ := r.ErrorDetails()["fields"].([]any)
		want := fmt.Sprintf("request validation failed: %d fields, the first %d listed", rest.MaxMembers-1, errs.MaxListedFields)
		if r.Status != 422 || r.ErrorCode() != "validation_error" || r.ErrorMessage() != want || len(fields) != errs.MaxListedFields {
			t.Fatalf("%d %.300s", r.Status, r.Body)
		}
		// Sorted by name: x1, x10, x100, x101, …
		if f := fields[2].(map[string]any); f["field"] != "x100" || f["issue"] != "is not a known field" {
			t.Errorf("third field %v, want x100", f)
		}
		if got := names(); len(got) != 1 {
			t.Errorf("clients after the refusal: %q", got)
		}
	})
	t.Run("PATCH at the bound", func(t *testing.T) {
		r := a.Do("PATCH", "/api/v2/clients/"+id, body("Changed", rest.MaxMembers))
		warnings, _ := r.JSON()["warnings"].([]any)
		if r.Status != 200 || r.Data()["name"] != "Changed" || len(warnings) != 1 {
			t.Fatalf("%d %.300s", r.Status, r.Body)
		}
		w := warnings[0].(map[string]any)
		fields, _ := w["details"].(map[string]any)["fields"].([]any)
		if w["code"] != "ignored_fields" || len(fields) != errs.MaxListedFields || fields[0] != "x1" || fields[2] != "x100" {
			t.Errorf("warning %.300v", w)
		}
	})
}

package rest_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestErrorsRepeatAtMost128BytesOfTheRequest: an error that names the
// client's own text (a member given twice, an unknown field, a PATCH's
// ignored field) repeats at most errs.MaxEcho bytes of it, cut
// and marked with "…", however long the text was; short text is repeated
// whole (the other tests of each refusal).
func TestErrorsRepeatAtMost128BytesOfTheRequest(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Echo")
	long := strings.Repeat("x", 10_000)
	cut := long[:errs.MaxEcho-len("…")] + "…"

	client := a.Post("/api/v2/clients", map[string]any{"name": "Acme"})
	if client.Status != 201 {
		t.Fatalf("create: %d %s", client.Status, client.Body)
	}
	id, _ := client.Data()["id"].(string)

	message := func(r *apitest.Response) string {
		m, _ := r.JSON()["error"].(map[string]any)["message"].(string)
		return m
	}
	t.Run("a long name given twice", func(t *testing.T) {
		r := a.Do("POST", "/api/v2/clients", `{"name":"A","`+long+`":1,"`+long+`":2}`)
		msg := message(r)
		if r.Status != 400 || r.ErrorCode() != "malformed_json" || !strings.Contains(msg, `"`+cut+`"`) || len(msg) > 400 {
			t.Fatalf("%d, message of %d bytes: %.300s", r.Status, len(msg), r.Body)
		}
	})
	t.Run("a long name given twice inside a long name", func(t *testing.T) {
		r := a.Do("POST", "/api/v2/clients", `{"name":"A","`+long+`":{"b":1,"b":2}}`)
		msg := message(r)
		if r.Status != 400 || !strings.Contains(msg, "the object at /"+long[:errs.MaxEcho-len("/…")]+"…") || len(msg) > 400 {
			t.Fatalf("%d, message of %d bytes: %.300s", r.Status, len(msg), r.Body)
		}
	})
	t.Run("a long unknown field", func(t *testing.T) {
		r := a.Do("POST", "/api/v2/clients", `{"name":"A","`+long+`":1}`)
		fields, _ := r.ErrorDetails()["fields"].([]any)
		if r.Status != 422 || r.ErrorCode() != "validation_error" || len(fields) != 1 ||
			fields[0].(map[string]any)["field"] != cut || len(r.Body) > 1000 {
			t.Fatalf("%d, body of %d bytes: %.300s", r.Status, len(r.Body), r.Body)
		}
	})
	t.Run("a long field a PATCH ignores", func(t *testing.T) {
		r := a.Do("PATCH", "/api/v2/clients/"+id, `{"name":"B","`+long+`":1}`)
		warnings, _ := r.JSON()["warnings"].([]any)
		if r.Status != 200 || len(warnings) != 1 || len(r.Body) > 2000 {
			t.Fatalf("%d, body of %d bytes: %.300s", r.Status, len(r.Body), r.Body)
		}
		fields, _ := warnings[0].(map[string]any)["details"].(map[string]any)["fields"].([]any)
		if len(fields) != 1 || fields[0] != cut {
			t.Fatalf("ignored fields %v, want [%q]", fields, cut)
		}
	})
	if r := a.Get("/api/v2/clients"); len(r.List()) != 1 || r.List()[0]["name"] != "B" {
		t.Fatalf("clients after the refusals: %.300s", r.Body)
	}
}

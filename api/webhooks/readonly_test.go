package webhooks_test

import (
	"net/http"
	"slices"
	"testing"
)

// TestAnEchoedEndpointIsReadOnly: an endpoint read with GET and sent back
// whole is refused on POST with "is read-only" for each field its GET
// shows that no body writes, never "is not a known field"; on PATCH they
// are ignored and named in ignored_fields.
func TestAnEchoedEndpointIsReadOnly(t *testing.T) {
	env := newEnv(t)
	org := env.NewOrg("Echo")
	created := org.Post(endpoints, map[string]any{"url": "http://127.0.0.1:9/hook", "enabled_events": []string{"*"}})
	if created.Status != http.StatusCreated {
		t.Fatalf("POST: %d %s", created.Status, created.Body)
	}
	id := created.Data()["id"].(string)
	got := org.Get(endpoints + "/" + id).Data()
	writable := []string{"url", "description", "enabled_events", "status"}

	res := org.Post(endpoints, got)
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("POST of the GET body: %d %s, want 422", res.Status, res.Body)
	}
	issues := map[string]string{}
	e, _ := res.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	fields, _ := d["fields"].([]any)
	for _, f := range fields {
		m, _ := f.(map[string]any)
		issues[m["field"].(string)] = m["issue"].(string)
	}
	for name := range got {
		if slices.Contains(writable, name) {
			continue
		}
		if issues[name] != "is read-only" {
			t.Errorf("POST with %s: issue %q, want is read-only", name, issues[name])
		}
	}

	patched := org.Patch(endpoints+"/"+id, got)
	if patched.Status != http.StatusOK {
		t.Fatalf("PATCH of the GET body: %d %s", patched.Status, patched.Body)
	}
}

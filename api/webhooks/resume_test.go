package webhooks_test

import (
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
)

// TestResumeCursorListsWhatADisabledEndpointMissed: a disabled endpoint is
// sent none of the changes made while it is disabled, and its
// resume_cursor is where a reader of the change feed finds them: every
// change of the organization is either queued for the endpoint (before or
// by the disable) or listed after the cursor, never both. A re-enable
// keeps the cursor, the next disable moves it on, an endpoint never
// disabled has none, and another organization's key cannot read from it.
func TestResumeCursorListsWhatADisabledEndpointMissed(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a, b := env.NewOrg("A"), env.NewOrg("B")
	res := a.Post(endpoints, map[string]any{"url": "http://127.0.0.1:9/hook", "enabled_events": []string{"client.created"}})
	if res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	id := res.Data()["id"].(string)
	ep := endpoints + "/" + id
	if v, shown := res.Data()["resume_cursor"]; !shown || v != nil {
		t.Fatalf("a new endpoint's resume_cursor: %v (shown %v), want null", v, shown)
	}

	// The disable queues this one when it is visible by then; when a
	// transaction elsewhere on the server holds the horizon back, it is
	// not, and it is one of the changes after the cursor.
	created := []string{createClient(t, a, "made before the disable")}
	cursor := patchStatus(t, a, ep, "disabled")
	if cursor == "" {
		t.Fatal("a disabled endpoint shows no resume_cursor")
	}
	created = append(created, createClient(t, a, "missed 1"), createClient(t, a, "missed 2"))
	waitFor(t, "every change in the feed", func() bool { return len(clientsCreatedAfter(t, a, "")) == len(created) })
	queued := map[string]bool{}
	for _, d := range deliveries(t, a, id) {
		queued[d["change_id"].(string)] = true
	}
	after := map[string]bool{}
	for _, c := range clientsCreatedAfter(t, a, cursor) {
		after[c.change] = true
		if queued[c.change] {
			t.Errorf("client %s: queued for the endpoint and listed after its resume_cursor", c.object)
		}
	}
	for _, c := range clientsCreatedAfter(t, a, "") {
		if !queued[c.change] && !after[c.change] {
			t.Errorf("client %s: neither queued for the endpoint nor listed after its resume_cursor", c.object)
		}
	}
	if len(after) < 2 {
		t.Fatalf("%d changes after the resume_cursor, want at least the two made while disabled", len(after))
	}
	for _, r := range []*apitest.Response{a.Get(ep), a.Get(endpoints)} {
		d := r.Data()
		if r.Status == 200 && d == nil {
			d = r.List()[0]
		}
		if r.Status != 200 || d["resume_cursor"] != cursor {
			t.Fatalf("read back: %d resume_cursor %v, want %s", r.Status, d["resume_cursor"], cursor)
		}
	}

	if r := b.Get("/api/v2/changes?cursor=" + url.QueryEscape(cursor)); r.Status != 422 {
		t.Fatalf("another organization reading from the cursor: %d %s, want 422", r.Status, r.Body)
	}

	if again := patchStatus(t, a, ep, "enabled"); again != cursor {
		t.Fatalf("re-enabled: resume_cursor %q, want the disable's %q kept", again, cursor)
	}
	later := patchStatus(t, a, ep, "disabled")
	if later == cursor {
		t.Fatal("a second disable kept the first one's resume_cursor")
	}
	last := createClient(t, a, "missed by the second disable")
	waitFor(t, "the second disable's change in the feed", func() bool { return len(clientsCreatedAfter(t, a, later)) >= 1 })
	for _, c := range clientsCreatedAfter(t, a, later) {
		if after[c.change] && c.object != last {
			t.Errorf("client %s, missed by the first disable, is listed after the second one's cursor", c.object)
		}
	}
}

// patchStatus sets the endpoint's status and returns its resume_cursor
// ("" when null).
func patchStatus(t *testing.T, o *apitest.Org, ep, status string) string {
	t.Helper()
	r := o.Patch(ep, map[string]any{"status": status})
	if r.Status != 200 || r.Data()["status"] != status {
		t.Fatalf("PATCH status %s: %d %s", status, r.Status, r.Body)
	}
	cursor, _ := r.Data()["resume_cursor"].(string)
	return cursor
}

// createdChange is a client.created change of the feed.
type createdChange struct{ change, object string }

// clientsCreatedAfter follows o's change feed from cursor ("": its start)
// to its end and returns the client.created changes it lists, in feed order.
func clientsCreatedAfter(t *testing.T, o *apitest.Org, cursor string) []createdChange {
	t.Helper()
	var out []createdChange
	for _, c := range o.ChangesAfter(cursor) {
		if c["type"] == "client.created" {
			out = append(out, createdChange{change: c["id"].(string), object: c["object_id"].(string)})
		}
	}
	return out
}

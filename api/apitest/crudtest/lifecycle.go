package crudtest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

// Lifecycle is the create → get → list → patch → get round trip of one
// resource.
type Lifecycle struct {
	// Path is the collection, e.g. /api/v2/events.
	Path string
	// Create is a valid create body; every field must come back as sent.
	Create map[string]any
	// Defaults are fields the create body omits and their expected values.
	Defaults map[string]any
	// Patch is a valid patch body; every field must come back as sent and
	// every other field must keep its value.
	Patch map[string]any
}

// Run performs the round trip as o and returns the final record.
func (l Lifecycle) Run(t *testing.T, o *apitest.Org) map[string]any {
	t.Helper()
	r := o.Post(l.Path, l.Create)
	if r.Status != 201 {
		t.Fatalf("POST %s: %d %s", l.Path, r.Status, r.Body)
	}
	created := r.Data()
	for k, v := range l.Create {
		if !Same(created[k], v) {
			t.Errorf("POST %s: %s = %v, want %v", l.Path, k, created[k], v)
		}
	}
	for k, v := range l.Defaults {
		if !Same(created[k], v) {
			t.Errorf("POST %s: default %s = %v, want %v", l.Path, k, created[k], v)
		}
	}
	id, _ := created["id"].(string)
	if _, err := uuid.Parse(id); err != nil {
		t.Fatalf("POST %s: id %q is not a uuid", l.Path, id)
	}
	if created["demo"] != false {
		t.Errorf("POST %s with a live key: demo = %v", l.Path, created["demo"])
	}
	if _, ok := created["organization_id"]; ok {
		t.Errorf("POST %s: organization_id is exposed", l.Path)
	}
	AssertUTC(t, created, "created_at", "updated_at")
	item := l.Path + "/" + id

	if g := o.Get(item); g.Status != 200 || !Same(g.Data(), created) {
		t.Fatalf("GET %s: %d %s, want %v", item, g.Status, g.Body, created)
	}
	listed := false
	for _, got := range Walk(t, o, l.Path, 100, nil) {
		listed = listed || got == id
	}
	if !listed {
		t.Errorf("GET %s does not list %s", l.Path, id)
	}

	p := o.Patch(item, l.Patch)
	if p.Status != 200 {
		t.Fatalf("PATCH %s: %d %s", item, p.Status, p.Body)
	}
	patched := p.Data()
	for k, v := range created {
		want := v
		if pv, ok := l.Patch[k]; ok {
			want = pv
		}
		if k == "updated_at" {
			continue
		}
		if !Same(patched[k], want) {
			t.Errorf("PATCH %s: %s = %v, want %v", item, k, patched[k], want)
		}
	}
	if len(patched) != len(created) {
		t.Errorf("PATCH %s: %d fields, created had %d", item, len(patched), len(created))
	}
	before, _ := time.Parse(time.RFC3339Nano, created["updated_at"].(string))
	after, _ := time.Parse(time.RFC3339Nano, patched["updated_at"].(string))
	if !after.After(before) {
		t.Errorf("PATCH %s: updated_at %v not after %v", item, after, before)
	}
	if g := o.Get(item); g.Status != 200 || !Same(g.Data(), patched) {
		t.Fatalf("GET %s after PATCH: %d %s, want %v", item, g.Status, g.Body, patched)
	}
	return patched
}

// AssertUTC fails unless each field is an RFC 3339 date-time in UTC.
func AssertUTC(t testing.TB, rec map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		s, _ := rec[f].(string)
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil || !strings.HasSuffix(s, "Z") {
			t.Errorf("%s = %q is not an RFC 3339 UTC date-time", f, s)
		}
	}
}

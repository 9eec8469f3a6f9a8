package crudtest

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// CommonReadOnly are the fields of every v2 record that no body writes
// (docs/decisions.md, "POST refuses unknown fields"), as the checks here
// expect them. Written out here, not taken from rest.CommonReadOnly: an
// expectation taken from the code under test would follow a field dropped
// from it.
var CommonReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

// ReadOnly describes the read-only fields of one resource for
// ReadOnlyFields.
type ReadOnly struct {
	// Path is the collection, e.g. /api/v2/quotes.
	Path string
	// Item is the path of a record of the organization, for PATCH.
	Item string
	// Table holds the records (to prove that nothing was written).
	Table string
	// Create is a valid create body.
	Create map[string]any
	// Fields are the read-only fields beyond CommonReadOnly: those the
	// server computes, and each expansion that inlines a record into this
	// one (a record read with ?expand and sent back carries it).
	Fields []string
}

// ReadOnlyFields checks that each field of CommonReadOnly and r.Fields gets
// the read-only treatment: added to a valid create body, it is 422
// validation_error naming it alone, "is read-only", and nothing is written;
// as a PATCH body, it is 200 with the record unchanged, named alone in the
// ignored_fields warning, and nothing is written.
func ReadOnlyFields(t *testing.T, env *apitest.Env, o *apitest.Org, r ReadOnly) {
	t.Helper()
	before := o.Patch(r.Item, map[string]any{})
	if before.Status != 200 {
		t.Fatalf("PATCH %s {}: %d %s", r.Item, before.Status, short(before.Body))
	}
	for _, f := range slices.Concat(CommonReadOnly, r.Fields) {
		// The record's own value when it shows the field (an echo), else
		// any value: a read-only field is refused whatever it holds.
		value, ok := before.Data()[f]
		if !ok {
			value = "2001-01-01T00:00:00Z"
		}
		t.Run("POST "+f, func(t *testing.T) {
			body := map[string]any{f: value}
			for k, v := range r.Create {
				body[k] = v
			}
			snap := Take(t, env, r.Table, o.ID)
			res := o.Post(r.Path, body)
			if res.Status != 422 || res.ErrorCode() != "validation_error" {
				t.Fatalf("POST %s with %s: %d %s, want 422 validation_error", r.Path, f, res.Status, short(res.Body))
			}
			if got := fieldIssues(res); len(got) != 1 || got[0] != [2]string{f, "is read-only"} {
				t.Errorf("POST %s with %s: details.fields %v, want [%s: is read-only]", r.Path, f, got, f)
			}
			if after := Take(t, env, r.Table, o.ID); after != snap {
				t.Errorf("POST %s with %s: %s changed from %+v to %+v", r.Path, f, r.Table, snap, after)
			}
		})
		t.Run("PATCH "+f, func(t *testing.T) {
			snap := Take(t, env, r.Table, o.ID)
			res := o.Patch(r.Item, map[string]any{f: value})
			if res.Status != 200 || !Same(res.Data(), before.Data()) {
				t.Fatalf("PATCH %s {%s}: %d %s, want 200 unchanged", r.Item, f, res.Status, short(res.Body))
			}
			if got := IgnoredFields(res); !slices.Equal(got, []string{f}) {
				t.Errorf("PATCH %s {%s}: ignored_fields %v, want [%s]", r.Item, f, got, f)
			}
			if after := Take(t, env, r.Table, o.ID); after != snap {
				t.Errorf("PATCH %s {%s}: %s changed from %+v to %+v", r.Item, f, r.Table, snap, after)
			}
		})
	}
}

// IgnoredFields returns details.fields of a write's ignored_fields
// warning, nil when it has none.
func IgnoredFields(r *apitest.Response) []string {
	warnings, _ := r.JSON()["warnings"].([]any)
	var out []string
	for _, w := range warnings {
		m, _ := w.(map[string]any)
		if m["code"] != "ignored_fields" {
			continue
		}
		d, _ := m["details"].(map[string]any)
		fields, _ := d["fields"].([]any)
		for _, f := range fields {
			s, _ := f.(string)
			out = append(out, s)
		}
	}
	return out
}

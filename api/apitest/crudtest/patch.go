package crudtest

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// PatchRules describes a resource's PATCH semantics for PatchSemantics.
type PatchRules struct {
	// Item is the path of a record of A, e.g. /api/v2/events/<id>.
	Item string
	// Table holds the records (to prove rejected patches wrote nothing).
	Table string
	// Nullable fields are cleared by null.
	Nullable []string
	// NotNull fields reject null with 422.
	NotNull []string
	// Valid is a valid patch body (sent by another organization: 404).
	Valid map[string]any
}

// PatchSemantics checks, on A's record: {} answers 200 unchanged; each
// read-only field is ignored (200, unchanged, an ignored_fields warning,
// nothing written); each null on a non-nullable field is 422 and writes
// nothing; organization B gets 404 on A's id and changes nothing; a non-uuid
// id is 404; finally null clears each nullable field.
func PatchSemantics(t *testing.T, env *apitest.Env, a, b *apitest.Org, r PatchRules) {
	t.Helper()
	before := a.Get(r.Item)
	if before.Status != 200 {
		t.Fatalf("GET %s: %d", r.Item, before.Status)
	}
	t.Run("empty body", func(t *testing.T) {
		p := a.Patch(r.Item, map[string]any{})
		if p.Status != 200 || !Same(p.Data(), before.Data()) {
			t.Fatalf("PATCH {}: %d %s, want unchanged %v", p.Status, p.Body, before.Data())
		}
	})
	t.Run("read-only fields ignored", func(t *testing.T) {
		for _, f := range CommonReadOnly {
			snap := Take(t, env, r.Table, a.ID)
			p := a.Patch(r.Item, map[string]any{f: "2001-01-01T00:00:00Z"})
			if p.Status != 200 || !Same(p.Data(), before.Data()) {
				t.Fatalf("PATCH {%s}: %d %s, want 200 unchanged", f, p.Status, p.Body)
			}
			if w := p.JSON()["warnings"]; w == nil {
				t.Errorf("PATCH {%s}: no ignored_fields warning: %s", f, p.Body)
			}
			if after := Take(t, env, r.Table, a.ID); after != snap {
				t.Fatalf("PATCH {%s} wrote the row", f)
			}
		}
	})
	var cases []Case
	for _, f := range r.NotNull {
		cases = append(cases, Case{Name: "null " + f, Method: "PATCH", Path: r.Item,
			Body: map[string]any{f: nil}, Status: 422, Code: "validation_error", Field: f})
	}
	Rejects(t, env, a, r.Table, cases)

	t.Run("other organization", func(t *testing.T) {
		for _, body := range []map[string]any{r.Valid, {}} {
			snap := Take(t, env, r.Table, a.ID)
			if p := b.Patch(r.Item, body); p.Status != 404 || p.ErrorCode() != "not_found" {
				t.Fatalf("B PATCH A's record: %d %s", p.Status, p.Body)
			}
			if after := Take(t, env, r.Table, a.ID); after != snap {
				t.Fatalf("B's PATCH changed A's rows")
			}
		}
		if g := b.Get(r.Item); g.Status != 404 || g.ErrorCode() != "not_found" {
			t.Fatalf("B GET A's record: %d %s", g.Status, g.Body)
		}
	})
	t.Run("non-uuid id", func(t *testing.T) {
		dir := r.Item[:len(r.Item)-36]
		for _, id := range []string{"abc", "123", "00000000-0000-0000-0000-00000000000", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"} {
			if p := a.Patch(dir+id, r.Valid); p.Status != 404 {
				t.Errorf("PATCH %s: %d", dir+id, p.Status)
			}
			if g := a.Get(dir + id); g.Status != 404 {
				t.Errorf("GET %s: %d", dir+id, g.Status)
			}
		}
	})
	t.Run("null clears", func(t *testing.T) {
		for _, f := range r.Nullable {
			p := a.Patch(r.Item, map[string]any{f: nil})
			if p.Status != 200 {
				t.Fatalf("PATCH %s=null: %d %s", f, p.Status, p.Body)
			}
			if v, ok := p.Data()[f]; !ok || v != nil {
				t.Errorf("PATCH %s=null: %s = %v", f, f, v)
			}
			if g := a.Get(r.Item); g.Data()[f] != nil {
				t.Errorf("GET after %s=null: %v", f, g.Data()[f])
			}
		}
	})
}

package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestWritesWithIfMatchAreRefused: If-Match compares strongly and the
// API's tags are weak, so a write naming tags (the record's own current
// one included, weak or in its strong form) is 412 precondition_failed,
// writes nothing and leaves its Idempotency-Key unspent, and so is one
// with If-Unmodified-Since alone or with any If-None-Match; "If-Match: *"
// does not stop a write; a
// read ignores If-Match, and a path no route serves keeps its 404 or 405
// (docs/decisions.md, "Conditional reads").
func TestWritesWithIfMatchAreRefused(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Guarded")
	created := a.Post("/api/v2/clients", map[string]any{"name": "Summit Stage Works"})
	if created.Status != 201 {
		t.Fatalf("POST: %d %s", created.Status, created.Body)
	}
	record := "/api/v2/clients/" + created.Data()["id"].(string)
	read := a.Get(record)
	tag := read.Header.Get("ETag")
	if !strings.HasPrefix(tag, `W/"`) {
		t.Fatalf("GET: ETag %q, want a weak tag", tag)
	}

	refused := []struct {
		name, method, path, ifMatch string
		body                        any
	}{
		{"PATCH naming the current tag", http.MethodPatch, record, tag, map[string]any{"notes": "one"}},
		{"PATCH naming its strong form", http.MethodPatch, record, strings.TrimPrefix(tag, "W/"), map[string]any{"notes": "two"}},
		{"PATCH naming a list", http.MethodPatch, record, `"other", ` + tag, map[string]any{"notes": "three"}},
		{"POST naming a tag", http.MethodPost, "/api/v2/clients", `"x"`, map[string]any{"name": "Guarded copy"}},
		// an empty list of tags matches no record, however it is spelled
		{"PATCH with an empty If-Match", http.MethodPatch, record, "", map[string]any{"notes": "four"}},
		{"PATCH with an If-Match of one comma", http.MethodPatch, record, ",", map[string]any{"notes": "five"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			res := a.Do(tc.method, tc.path, tc.body, "If-Match", tc.ifMatch, "Idempotency-Key", "guarded-"+tc.name)
			if res.Status != http.StatusPreconditionFailed || res.ErrorCode() != "precondition_failed" {
				t.Fatalf("%d %s, want 412 precondition_failed", res.Status, res.Body)
			}
			// The key was not spent: sent again without If-Match, it executes.
			again := a.Do(tc.method, tc.path, tc.body, "Idempotency-Key", "guarded-"+tc.name)
			if again.Status >= 300 || again.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("the same key without If-Match: %d %s (replayed %q), want executed", again.Status, again.Body, again.Header.Get("Idempotent-Replayed"))
			}
		})
	}
	// If-None-Match is evaluated on reads only: a write carrying it is
	// refused too, whatever it names.
	notes := a.Get(record).Data()["notes"]
	for _, v := range []string{"*", tag, `"no such tag"`} {
		if res := a.Do(http.MethodPatch, record, map[string]any{"notes": "unless " + v}, "If-None-Match", v); res.Status != 412 || res.ErrorCode() != "precondition_failed" {
			t.Errorf("PATCH with If-None-Match %s: %d %s, want 412 precondition_failed", v, res.Status, res.Body)
		}
	}
	if got := a.Get(record).Data()["notes"]; got != notes {
		t.Errorf("notes after PATCHes with If-None-Match: %v, want %v", got, notes)
	}
	if res := a.Do(http.MethodPost, "/api/v2/clients", map[string]any{"name": "Unless"}, "If-None-Match", "*"); res.Status != 412 {
		t.Errorf("POST with If-None-Match: *: %d %s, want 412", res.Status, res.Body)
	}
	if n := len(a.Get("/api/v2/clients").List()); n != 2 {
		t.Fatalf("%d clients, want 2: the refused POST must have written nothing", n)
	}

	before := a.Get(record).Data()["notes"]
	if res := a.Do(http.MethodPatch, record, map[string]any{"notes": "refused"}, "If-Match", tag); res.Status != 412 {
		t.Fatalf("PATCH with If-Match: %d %s", res.Status, res.Body)
	}
	if got := a.Get(record).Data()["notes"]; got != before {
		t.Fatalf("notes after a refused PATCH: %v, want %v", got, before)
	}

	if res := a.Do(http.MethodPatch, record, map[string]any{"notes": "star"}, "If-Match", "*"); res.Status != 200 || res.Data()["notes"] != "star" {
		t.Errorf("PATCH with If-Match: *: %d %s, want 200 and written", res.Status, res.Body)
	}
	since := "Sat, 01 Jan 2000 00:00:00 GMT"
	if res := a.Do(http.MethodPatch, record, map[string]any{"notes": "since"}, "If-Unmodified-Since", since); res.Status != 412 || res.ErrorCode() != "precondition_failed" {
		t.Errorf("PATCH with If-Unmodified-Since: %d %s, want 412", res.Status, res.Body)
	}
	if res := a.Do(http.MethodPatch, record, map[string]any{"notes": "star and since"}, "If-Match", "*", "If-Unmodified-Since", since); res.Status != 200 {
		t.Errorf("PATCH with If-Match: * and If-Unmodified-Since: %d %s, want 200 (the date is then ignored)", res.Status, res.Body)
	}
	// A path no route serves keeps its 404, and a method the path does
	// not take its 405.
	if res := a.Do(http.MethodPatch, "/api/v2/no_such_things/1", map[string]any{}, "If-Match", tag); res.Status != 404 {
		t.Errorf("PATCH of an unknown path with If-Match: %d %s, want 404", res.Status, res.Body)
	}
	if res := a.Do(http.MethodDelete, record, nil, "If-Match", tag); res.Status != 405 {
		t.Errorf("DELETE of a client with If-Match: %d %s, want 405", res.Status, res.Body)
	}
	if res := a.Do(http.MethodGet, record, nil, "If-Match", `"x"`); res.Status != 200 {
		t.Errorf("GET with If-Match: %d %s, want 200", res.Status, res.Body)
	}
}

// v1 tags no answer, so no If-Match a v1 client sends can name a tag of
// the record: its PATCH is refused as v2's writes are, in v1's envelope.
func TestV1PatchWithIfMatchIsRefused(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Guarded on v1")
	created := a.Post("/api/v2/equipment", map[string]any{"name": "SM58", "weight_lbs": 1.5})
	if created.Status != 201 {
		t.Fatalf("POST: %d %s", created.Status, created.Body)
	}
	record := "/api/v1/equipment/" + created.Data()["id"].(string)
	for _, header := range [][]string{{"If-Match", `"nope"`}, {"If-Match", `W/"x"`}, {"If-Match", ""}, {"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}, {"If-None-Match", "*"}} {
		res := a.Do(http.MethodPatch, record, map[string]any{"weight_lbs": 9}, header...)
		if res.Status != http.StatusPreconditionFailed || res.ErrorCode() != "BAD_REQUEST" {
			t.Fatalf("v1 PATCH with %s: %d %s, want 412 BAD_REQUEST", header[0], res.Status, res.Body)
		}
	}
	if got := a.Get(record).Data()["weight_lbs"]; got != 1.5 {
		t.Fatalf("weight_lbs after refused PATCHes: %v, want 1.5", got)
	}
	if res := a.Do(http.MethodPatch, record, map[string]any{"weight_lbs": 2}, "If-Match", "*"); res.Status != 200 {
		t.Fatalf("v1 PATCH with If-Match: *: %d %s, want 200", res.Status, res.Body)
	}
}

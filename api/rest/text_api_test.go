package rest_test

import (
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// oneLine and freeText are the issues of a control character in a
// one-line field and in free text.
const (
	oneLine  = "must not contain line breaks or control characters"
	freeText = "must not contain control characters other than tab, line feed and carriage return"
)

// TestNamesShowingNothing: a required name of Hangul fillers, the
// combining grapheme joiner, variation selectors or the Braille blank
// shows nothing and is "must not be empty", like one of zero-width
// spaces; two such category names are not created to look empty and the
// same. At either end these characters are trimmed, and a variation
// selector that belongs to an emoji is kept.
func TestNamesShowingNothing(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Nothing")
	for _, name := range []string{"\u3164", "\u3164\u3164", "\u115f", "\u1160", "\uffa0", "\u034f",
		"\ufe0f", "\ufe00\ufe0e", "\U000E0100", "\u2800", "\u2800 \u3164\u200b"} {
		for _, path := range []string{"/api/v2/clients", "/api/v2/equipment_categories"} {
			r := a.Post(path, map[string]any{"name": name})
			if r.Status != 422 || issues(r)["name"] != "must not be empty" {
				t.Errorf("POST %s name %+q: %d %s, want 422 name must not be empty", path, name, r.Status, r.Body)
			}
		}
	}
	if r := a.Get("/api/v2/equipment_categories"); len(r.List()) != 0 {
		t.Fatalf("%d categories stored, want none: %s", len(r.List()), r.Body)
	}

	r := a.Post("/api/v2/equipment_categories", map[string]any{"name": "\u3164Truss\u2800"})
	if r.Status != 201 || r.Data()["name"] != "Truss" {
		t.Fatalf("fillers at either end: %d %s, want 201 named Truss", r.Status, r.Body)
	}
	if r := a.Post("/api/v2/equipment_categories", map[string]any{"name": "Truss\u3164\u034f"}); r.Status != 409 || r.ErrorCode() != "duplicate_record" {
		t.Fatalf("Truss with fillers after it: %d %s, want 409 duplicate_record", r.Status, r.Body)
	}
	const heart = "Stage \u2764\ufe0f"
	if r := a.Post("/api/v2/equipment_categories", map[string]any{"name": heart + "\u200b"}); r.Status != 201 || r.Data()["name"] != heart {
		t.Fatalf("an emoji with its variation selector: %d %s, want 201 named %+q", r.Status, r.Body, heart)
	}
}

// TestOneLineFields: a one-line field (a name, title, venue, number,
// plate) holding a control character or a line break is 422
// validation_error naming it, on POST and PATCH, and nothing is stored;
// free text (notes, descriptions, a client's address) keeps tabs and line
// breaks and refuses the other control characters. A search filter is
// not a stored value and is not judged so.
func TestOneLineFields(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Lines")
	event := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": "Gig", "venue": "Hall", "start_date": "2026-05-01T18:00:00Z", "end_date": "2026-05-02T02:00:00Z"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	refused := []struct {
		name, path string
		body       map[string]any
		want       map[string]string
	}{
		{"escape sequences and a forged header", "/api/v2/events",
			event(map[string]any{"name": "Gig\u001b[2J\u001b[31mPWNED", "venue": "Hall\r\nX-Injected: 1"}),
			map[string]string{"name": oneLine, "venue": oneLine}},
		{"bell and backspace in a number", "/api/v2/quotes", map[string]any{"title": "t", "quote_number": "Q-1\u0007\u0008"},
			map[string]string{"quote_number": oneLine}},
		{"a tab in an invoice number", "/api/v2/invoices", map[string]any{"title": "t", "invoice_number": "INV\t1", "due_date": "2026-06-01"},
			map[string]string{"invoice_number": oneLine}},
		{"DEL", "/api/v2/equipment_categories", map[string]any{"name": "Del\u007f"}, map[string]string{"name": oneLine}},
		{"C1 next line", "/api/v2/equipment_categories", map[string]any{"name": "C1\u0085x"}, map[string]string{"name": oneLine}},
		{"a line separator", "/api/v2/clients", map[string]any{"name": "A\u2028B"}, map[string]string{"name": oneLine}},
		{"crew names", "/api/v2/crew_members", map[string]any{"first_name": "A\nB", "last_name": "C\u009bD"},
			map[string]string{"first_name": oneLine, "last_name": oneLine}},
		{"a plate", "/api/v2/vehicles", map[string]any{"name": "Van", "license_plate": "AB\u001b1"},
			map[string]string{"license_plate": oneLine}},
		{"equipment serial number", "/api/v2/equipment", map[string]any{"name": "Par", "serial_number": "S\n1"},
			map[string]string{"serial_number": oneLine}},
		{"an escape in free text", "/api/v2/events", event(map[string]any{"notes": "ok\n\u001b[2J"}),
			map[string]string{"notes": freeText}},
		{"a vertical tab in a line's description", "/api/v2/quotes",
			map[string]any{"title": "t", "line_items": []any{map[string]any{"description": "a\u000bb", "quantity": 1, "unit_price": 1}}},
			map[string]string{"line_items[0].description": freeText}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			r := a.Post(tt.path, tt.body)
			got := issues(r)
			if r.Status != 422 || r.ErrorCode() != "validation_error" || len(got) != len(tt.want) {
				t.Fatalf("%d %s, want 422 validation_error naming %v", r.Status, r.Body, tt.want)
			}
			for f, issue := range tt.want {
				if got[f] != issue {
					t.Errorf("%s: %q, want %q", f, got[f], issue)
				}
			}
		})
	}
	for _, path := range []string{"/api/v2/events", "/api/v2/quotes", "/api/v2/invoices", "/api/v2/equipment_categories",
		"/api/v2/clients", "/api/v2/crew_members", "/api/v2/vehicles", "/api/v2/equipment"} {
		if r := a.Get(path); len(r.List()) != 0 {
			t.Errorf("%s: %d stored, want none: %s", path, len(r.List()), r.Body)
		}
	}

	// Free text keeps its lines; a one-line field's trailing newline is
	// trimmed like other white space.
	const lines = "Load in:\r\n\t- truss\n\t- lights"
	ev := a.Post("/api/v2/events", event(map[string]any{"venue": "Hall B\r\n", "description": lines, "notes": "a\u2028b"}))
	if ev.Status != 201 || ev.Data()["venue"] != "Hall B" || ev.Data()["description"] != lines || ev.Data()["notes"] != "a\u2028b" {
		t.Fatalf("event with free text: %d %s", ev.Status, ev.Body)
	}
	cl := a.Post("/api/v2/clients", map[string]any{"name": "Acme", "address": "1 Main St\nSuite 4", "notes": lines})
	if cl.Status != 201 || cl.Data()["address"] != "1 Main St\nSuite 4" {
		t.Fatalf("client with a two-line address: %d %s", cl.Status, cl.Body)
	}
	q := a.Post("/api/v2/quotes", map[string]any{"title": "t", "notes": lines, "internal_notes": lines,
		"line_items": []any{map[string]any{"description": "Truss\n3 m", "quantity": 1, "unit_price": 1}}})
	if q.Status != 201 {
		t.Fatalf("quote with free text: %d %s", q.Status, q.Body)
	}

	// PATCH: the same rules.
	id, _ := ev.Data()["id"].(string)
	if r := a.Patch("/api/v2/events/"+id, map[string]any{"venue": "A\r\nB", "notes": "x\u0007"}); r.Status != 422 ||
		issues(r)["venue"] != oneLine || issues(r)["notes"] != freeText {
		t.Fatalf("PATCH with control characters: %d %s", r.Status, r.Body)
	}
	if r := a.Patch("/api/v2/events/"+id, map[string]any{"notes": "one\ntwo"}); r.Status != 200 || r.Data()["notes"] != "one\ntwo" {
		t.Fatalf("PATCH notes of two lines: %d %s", r.Status, r.Body)
	}
	if r := a.Get("/api/v2/events/" + id); r.Data()["venue"] != "Hall B" {
		t.Fatalf("venue after the refused PATCH: %s", r.Body)
	}

	// A free-text query parameter is read by the same rule (a search with
	// a line break would find nothing, as no stored name holds one, and
	// say nothing).
	if r := a.Get("/api/v2/clients?search=" + url.QueryEscape("Ac\nme")); r.Status != 422 || issues(r)["search"] != oneLine {
		t.Fatalf("search with a line break: %d %s, want 422 on search", r.Status, r.Body)
	}
	if r := a.Get("/api/v2/clients?search=" + url.QueryEscape("Acme\n")); r.Status != 200 {
		t.Fatalf("search with a trailing line break, which is trimmed: %d %s, want 200", r.Status, r.Body)
	}
}

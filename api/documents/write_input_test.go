package documents

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestDecodeWrite: the shared fields, the type's own and the lines land in
// the Write in one pass; the references name the body's client and event;
// a read-only field is refused as read-only; the rules given decide what is
// required.
func TestDecodeWrite(t *testing.T) {
	const client, event = "0b0e8b4a-3a8e-4f7c-9d1e-2f3a4b5c6d7e", "1c1f9c5b-4b9f-4a8d-8e2f-3a4b5c6d7e8f"
	rules := func(required ...string) rest.Rules {
		rs := rest.Rules{}
		for _, f := range []string{"title", "doc_number", "status", "client_id", "event_id", "own"} {
			rs[f] = rest.Rule{}
		}
		for _, f := range required {
			rs[f] = rest.Rule{Required: true}
		}
		return rs
	}
	tests := []struct {
		name    string
		body    string
		rules   rest.Rules
		changes int    // column assignments, the type's own included
		number  string // Write.Number
		lines   int    // -1: line_items absent
		issue   string // field=substring of its issue; "": valid
	}{
		{"every shared field", `{"title":"Gig","doc_number":"Q-1","status":"draft","client_id":"` + client + `","event_id":"` + event + `","own":"x"}`,
			rules(), 6, "Q-1", -1, ""},
		{"lines", `{"line_items":[{"description":"Truck","quantity":1,"unit_price":10}]}`, rules(), 0, "", 1, ""},
		{"a line total over the largest names the largest", `{"line_items":[{"description":"d","quantity":1000000,"unit_price":9999999.99}]}`,
			rules(), 0, "", -1, "line_items[0].unit_price=quantity × unit_price must be at most 999999999999.99"},
		{"read-only", `{"total_amount":"5.00"}`, rules(), 0, "", -1, "total_amount=read-only"},
		{"required by the rules", `{}`, rules("title"), 0, "", -1, "title=required"},
		{"the type's own field, required", `{"title":"Gig"}`, rules("own"), 0, "", -1, "own=required"},
		{"the number's field is the type's", `{"quote_number":"Q-1"}`, rules(), 0, "", -1, "quote_number=not a known field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := rest.ParseObject([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			var ownRules rest.Rules
			w := DecodeWrite(in, Body{Rules: tt.rules, NumberField: "doc_number", ReadOnly: []string{"total_amount"},
				Own: func(in *rest.Input, rules rest.Rules, w *documents.Write) {
					ownRules = rules
					v := in.String("own", rules.Get("own"))
					w.Changes.SetIf(v.Set, "own", v.Value)
				}})
			err = in.Err()
			if tt.issue == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
			} else {
				field, want, _ := strings.Cut(tt.issue, "=")
				if got := issueOf(t, err, field); !strings.Contains(got, want) {
					t.Fatalf("issue of %s: %q, want %q (%v)", field, got, want, err)
				}
				return
			}
			if ownRules == nil {
				t.Errorf("the type's own fields were not read")
			}
			if w.Changes.Len() != tt.changes || w.Number != tt.number {
				t.Errorf("changes %d number %q, want %d %q", w.Changes.Len(), w.Number, tt.changes, tt.number)
			}
			if got := len(w.Refs); got != 2 {
				t.Fatalf("refs %d, want client and event", got)
			}
			if tt.changes > 0 && (w.Refs[0].ID == nil || w.Refs[0].ID.String() != client || w.Refs[1].ID == nil || w.Refs[1].ID.String() != event) {
				t.Errorf("refs %+v, want the body's client and event", w.Refs)
			}
			if (w.Lines == nil) != (tt.lines < 0) || w.Lines != nil && len(*w.Lines) != tt.lines {
				t.Errorf("lines %v, want %d", w.Lines, tt.lines)
			}
		})
	}
}

// issueOf is the issue err names for field ("" for none).
func issueOf(t *testing.T, err error, field string) string {
	t.Helper()
	d, ok := errs.As(err).Details.(errs.ValidationDetails)
	if !ok {
		t.Fatalf("not a validation error: %v", err)
	}
	for _, f := range d.Fields {
		if f.Field == field {
			return f.Issue
		}
	}
	return ""
}

// TestTheTotalIsNamedWithTheOtherIssues: a document total over the largest
// is a rule of the body alone, so its 422 names it beside the body's other
// bad fields, not after they are mended.
func TestTheTotalIsNamedWithTheOtherIssues(t *testing.T) {
	line := `{"description":"d","quantity":1000000,"unit_price":999999.99}`
	in, err := rest.ParseObject([]byte(`{"title":"","line_items":[` + line + `,` + line + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	rules := rest.Rules{"title": {Required: true, MinLen: 1}}
	for _, f := range []string{"doc_number", "status", "client_id", "event_id"} {
		rules[f] = rest.Rule{}
	}
	DecodeWrite(in, Body{Rules: rules, NumberField: "doc_number",
		Own: func(*rest.Input, rest.Rules, *documents.Write) {}})
	err = in.Err()
	for field, want := range map[string]string{"title": "must not be empty", "line_items": "the total must be at most 999999999999.99"} {
		if got := issueOf(t, err, field); !strings.Contains(got, want) {
			t.Errorf("issue of %s: %q, want %q (%v)", field, got, want, err)
		}
	}
}

package tenancy

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
)

func TestParseScopes(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"all", len(AllScopes), false},
		{"events:read", 1, false},
		{"events:read, events:write,events:read", 2, false},
		{"jobs:read,crew:read", 2, false},
		{"events:delete", 0, true},
		{"", 0, true},
		{" , ", 0, true},
		{"events:read,,", 0, true},
		{"events:read,", 0, true},
		{",events:read", 0, true},
		{"all,events:read", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseScopes(tt.in)
		if (err != nil) != tt.wantErr || len(got) != tt.want {
			t.Errorf("ParseScopes(%q) = %v, %v", tt.in, got, err)
		}
	}
	if len(AllScopes) != 21 {
		t.Fatalf("want 19 v2 + 2 legacy scopes, have %d", len(AllScopes))
	}
	// The CLI's refusal of an unknown scope names the others and all.
	if _, err := ParseScopes("events:delete"); err == nil ||
		err.Error() != `unknown scope "events:delete" (known: `+JoinScopes(AllScopes)+"), or give all" {
		t.Errorf("ParseScopes(events:delete) error %v", err)
	}
}

func TestScopeSet(t *testing.T) {
	set := NewScopeSet(EventsRead, PickListsWrite)
	if !set.Has(EventsRead) || set.Has(EventsWrite) || !set.HasAny(JobsRead, PickListsWrite) || set.HasAny(JobsRead) {
		t.Fatal("membership wrong")
	}
	if l := set.List(); len(l) != 2 || l[0] != EventsRead || l[1] != PickListsWrite {
		t.Fatalf("List = %v", l)
	}
	if NewScopeSet(Scope("nope")).Has(Scope("nope")) {
		t.Fatal("unknown scope must not be held")
	}
}

// TestCheckScopes: the one rule for a key's scope list (ParseScopes,
// CreateKey, SetKeyScopes and the operator's spec.scopes call it).
func TestCheckScopes(t *testing.T) {
	known := " (known: " + JoinScopes(AllScopes) + ")"
	for _, c := range []struct {
		name   string
		scopes []Scope
		want   []Scope
		issue  string
	}{
		{"one", []Scope{EventsRead}, []Scope{EventsRead}, ""},
		{"order kept", []Scope{PickListsWrite, EventsRead}, []Scope{PickListsWrite, EventsRead}, ""},
		{"duplicates collapse to the first", []Scope{EventsRead, ClientsRead, EventsRead, ClientsRead},
			[]Scope{EventsRead, ClientsRead}, ""},
		{"legacy scopes", []Scope{JobsRead, CrewRead, JobsRead}, []Scope{JobsRead, CrewRead}, ""},
		{"every scope", AllScopes, AllScopes, ""},
		{"nil", nil, nil, "at least one scope is required"},
		{"empty", []Scope{}, nil, "at least one scope is required"},
		{"unknown", []Scope{EventsRead, "root"}, nil, `unknown scope "root"` + known},
		{"unknown after a duplicate", []Scope{EventsRead, EventsRead, "events:delete"}, nil, `unknown scope "events:delete"` + known},
		{"blank", []Scope{""}, nil, `unknown scope ""` + known},
		{"all is not a scope", []Scope{"all"}, nil, `unknown scope "all"` + known},
	} {
		got, err := CheckScopes(c.scopes)
		issue := ""
		if err != nil {
			if is := errs.Issues(err); len(is) != 1 || is[0].Field != "scopes" {
				t.Errorf("%s: err = %v, want a 422 on scopes", c.name, err)
			} else {
				issue = is[0].Issue
			}
		}
		if issue != c.issue || !slices.Equal(got, c.want) {
			t.Errorf("%s: CheckScopes(%v) = %v, %q; want %v, %q", c.name, c.scopes, got, issue, c.want, c.issue)
		}
	}
	in := []Scope{EventsRead, EventsRead}
	if _, err := CheckScopes(in); err != nil || in[1] != EventsRead {
		t.Errorf("CheckScopes changed its argument: %v", in)
	}
}

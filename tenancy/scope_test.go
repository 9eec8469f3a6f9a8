package tenancy

import (
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

func TestCheckScopes(t *testing.T) {
	for _, c := range []struct {
		scopes []Scope
		issue  string
	}{
		{[]Scope{EventsRead}, ""},
		{nil, "at least one scope is required"},
		{[]Scope{EventsRead, "root"}, "unknown scope root"},
	} {
		err := checkScopes(c.scopes)
		got := ""
		if err != nil {
			got = errs.Issues(err)[0].Issue
		}
		if got != c.issue {
			t.Errorf("checkScopes(%v) = %q, want %q", c.scopes, got, c.issue)
		}
	}
}

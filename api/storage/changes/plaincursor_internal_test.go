package changes

import (
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// TestPlainCursorRule: a feed cursor in the clear is accepted at a change
// numbered from 1 to the bound, whatever its position and type filter;
// another list's cursor in the clear is left alone.
func TestPlainCursorRule(t *testing.T) {
	org := tenancy.OrganizationID{UUID: uuid.New()}
	rule := PlainCursorRule(100)
	for _, tc := range []struct {
		name  string
		scope string
		c     storage.Cursor
		ok    bool
	}{
		{"the first change", Scope(org, ""), keyCursor(5, 1), true},
		{"at the bound", Scope(org, ""), keyCursor(1<<40, 100), true},
		{"with a type filter", Scope(org, "client.created"), keyCursor(7, 42), true},
		{"past the bound", Scope(org, ""), keyCursor(5, 101), false},
		{"far past the bound", Scope(org, "client.created"), keyCursor(5, 1<<62), false},
		{"no change (the head of an empty feed)", Scope(org, ""), keyCursor(0, 0), false},
		{"a negative seq", Scope(org, ""), keyCursor(5, -1), false},
		{"another list", storage.ListScope("clients", org), keyCursor(5, 1<<62), true},
		{"a list whose name starts like the feed's", storage.ListScope("changesets", org), keyCursor(5, 1<<62), true},
	} {
		if got := rule(tc.scope, tc.c); got != tc.ok {
			t.Errorf("%s: accepted %v, want %v", tc.name, got, tc.ok)
		}
	}
	if PlainCursorRule(0)(Scope(org, ""), keyCursor(5, 1)) {
		t.Error("a new database's bound (0) accepted a cursor in the clear")
	}
}

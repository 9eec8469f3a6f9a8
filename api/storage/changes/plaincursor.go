package changes

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// ListName names the feed in its cursors' scope (storage.ListScope).
const ListName = "changes"

// Scope is the scope of org's feed cursors, bound to a type filter's
// value (docs/changes.md, "Reading it").
func Scope(org tenancy.OrganizationID, types string) string {
	return storage.ListScope(ListName, org, types)
}

// PlainCursorRule is which feed cursors in the clear, issued before cursors
// were sealed, are still accepted (storage.Cursors.AcceptPlain): those at a
// change numbered from 1 to bound, the last number the feed had handed out
// when the migration that records it ran (PlainCursorBound), before which
// every such cursor was issued. The feed's position and seq are counters
// shared by every organization, and a sealed cursor carries the tag its
// position has in the clear, so a reader that could send any position in
// the clear could test guesses of its sealed cursors' positions, and count
// the other organizations' changes between two of them; it can test them
// only for a cursor at a change made before that migration
// (docs/decisions.md, "A feed cursor in the clear is accepted only at a
// change made before the upgrade"). Other lists' cursors are left
// alone: their position is a record of the reader's own organization.
func PlainCursorRule(bound int64) func(scope string, c storage.Cursor) bool {
	return func(scope string, c storage.Cursor) bool {
		if !strings.HasPrefix(scope, ListName+":") {
			return true
		}
		_, seq := fromCursor(c)
		return seq >= 1 && seq <= bound
	}
}

// PlainCursorBound reads the bound of PlainCursorRule (table
// change_plain_cursor_bound).
func PlainCursorBound(ctx context.Context, db bun.IDB) (int64, error) {
	var bound int64
	if err := db.NewRaw("SELECT seq FROM change_plain_cursor_bound").Scan(ctx, &bound); err != nil {
		return 0, database.Error(err)
	}
	return bound, nil
}

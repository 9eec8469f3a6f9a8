package server

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/database"
)

// Cursors reads (or makes, on first start) the key of the lists' cursors, a
// service secret in the database so that every pod reads every pod's
// cursors, and returns their codec, which accepts a change-feed cursor in
// the clear only up to the bound recorded at the upgrade
// (feed.PlainCursorRule; docs/decisions.md, "A feed cursor in the clear is
// accepted only at a change made before the upgrade").
func Cursors(ctx context.Context, db bun.IDB) (*storage.Cursors, error) {
	key, err := database.Secret(ctx, db, "cursor_hmac", 32)
	if err != nil {
		return nil, err
	}
	bound, err := feed.PlainCursorBound(ctx, db)
	if err != nil {
		return nil, err
	}
	cs := storage.NewCursors(key)
	cs.AcceptPlain(feed.PlainCursorRule(bound))
	return cs, nil
}

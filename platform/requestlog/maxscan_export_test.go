package requestlog

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// ListScanning is ListPage with maxScan in place of MaxScan (for the tests
// of package requestlog_test), so that a small log needs many bounded pages.
func ListScanning(ctx context.Context, db bun.IDB, org uuid.UUID, f Filter, after *Position, limit, maxScan int) (Page, error) {
	return list(ctx, db, org, f, after, limit, maxScan)
}

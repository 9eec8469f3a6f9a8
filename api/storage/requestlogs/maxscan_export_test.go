package requestlogs

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// ListScanning is ListPage with maxScan in place of MaxScan (for the tests
// of package requestlogs_test), so that a small log needs many bounded pages.
func ListScanning(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, f Filter, after *storage.Cursor, limit, maxScan int) (Page, error) {
	return list(ctx, db, org, f, after, limit, maxScan)
}

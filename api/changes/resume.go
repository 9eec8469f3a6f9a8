package changes

import (
	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/tenancy"
)

// ResumeCursor is the cursor of GET /changes at the place (position, seq)
// of org's feed, for a read without a type filter: a reader that follows it
// lists every change after that place, as a cursor the feed answered would.
// A webhook endpoint shows it as resume_cursor (docs/webhooks.md,
// "Delivery and retries").
func ResumeCursor(cs *storage.Cursors, org tenancy.OrganizationID, position, seq int64) string {
	return cs.Encode(feed.Scope(org, typeScope(nil)), feed.Place(position, seq))
}

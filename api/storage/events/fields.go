package events

import (
	"time"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
)

// Fields is a decoded create or patch body: the column assignments, plus the
// dates it sets so the window can be checked against the stored one.
type Fields struct {
	Changes storage.Changes
	// Start and End are the new dates, nil when the body leaves them alone.
	Start, End *time.Time
	// Refs are the records the body names (client_id), checked against the
	// organization before the write.
	Refs []related.Ref
}

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
	// Before, when set, receives from Update the dates the event had
	// before a PATCH that sets one of them, read under the row's lock in
	// the write's transaction: what the moved event's warning compares
	// with (api/events, warn.go).
	Before *Dates
}

// Dates are an event's start and end.
type Dates struct {
	Start, End time.Time
}

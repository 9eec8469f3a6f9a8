// Package isolation_test proves tenant isolation over every /api/v2 route
// and method: a table keyed by route ("METHOD /api/v2/path/:id") says how to
// create the record each route acts on, and the suite checks that another
// organization gets 404 on it, never sees it in a list, cannot reference it,
// and that a key with only the legacy crew:read scope is refused everywhere.
// A completeness test fails when a registered route has no table entry, so
// new routes must join the suite. Entries live in one file per area
// (catalogue_test.go, bookings_test.go) and join the table from init().
package isolation_test

import (
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

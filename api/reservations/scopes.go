package reservations

import (
	"context"

	"github.com/eventapi/eventapi/tenancy/auth"
)

// MayRead reports whether the key of ctx may read reservations: it holds one
// of ReadScopes, the scopes of GET /equipment_reservations and of the
// planning endpoints (GET /vehicles/{id}/load, /equipment/{id}/availability
// and /availability), which show them.
//
// This is the one rule for a write's warnings that tell about reservations
// beyond the record it answers: the over_payload / over_volume warnings of a
// reservation write (their details are the truck's totals, every other
// reservation on it included) and the stock_below_reserved warning of an
// equipment PATCH (it names reservations and events). A key that may read
// reservations gets them; another gets the write without them, never a code
// stripped of its details: the code alone still tells it something about
// reservations it may not read (that the truck's load passes its limit,
// whatever else is on it), and asking again with other quantities would
// tell the rest (docs/decisions.md, docs/availability.md).
func MayRead(ctx context.Context) bool { return auth.Check(ctx, ReadScopes...) == nil }

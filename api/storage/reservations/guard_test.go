package reservations

import "testing"

// TestBlockedMessage: the message states the figures of details, a
// negative availability (stock already overbooked) included.
func TestBlockedMessage(t *testing.T) {
	for _, c := range []struct {
		requested, available int
		want                 string
	}{
		{5, 3, "the reservation needs 5, and 3 are available in the window: 2 short"},
		{2, 1, "the reservation needs 2, and 1 is available in the window: 1 short"},
		{1, 0, "the reservation needs 1, and 0 are available in the window: 1 short"},
		{1, -2, "the reservation needs 1, and none are available in the window (2 more are held than stock): 3 short"},
		{2, -1, "the reservation needs 2, and none are available in the window (1 more is held than stock): 3 short"},
	} {
		d := &OverbookDetails{Requested: c.requested, Available: c.available, Deficit: c.requested - c.available}
		if got := blockedMessage(d); got != c.want {
			t.Errorf("blockedMessage(%d, %d) = %q, want %q", c.requested, c.available, got, c.want)
		}
	}
}

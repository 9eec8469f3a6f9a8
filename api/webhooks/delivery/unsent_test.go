package delivery

import (
	"testing"
	"time"
)

// TestUnsentRetry: a delivery that could not be prepared waits a minute,
// cut to the end of its retry window, and is given up only once the window
// has passed (not as soon as a minute's wait would cross the end, which
// would give it up as much as a minute early).
func TestUnsentRetry(t *testing.T) {
	since := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const window = 72 * time.Hour
	end := since.Add(window)
	for _, tc := range []struct {
		name    string
		now     time.Time
		retryIn time.Duration
		giveUp  bool
	}{
		{"the first failure", since, prepareRetry, false},
		{"well inside the window", since.Add(time.Hour), prepareRetry, false},
		{"a minute before the end", end.Add(-prepareRetry), prepareRetry, false},
		{"less than a minute before the end", end.Add(-20 * time.Second), 20 * time.Second, false},
		{"a nanosecond before the end", end.Add(-time.Nanosecond), time.Nanosecond, false},
		{"at the end", end, 0, true},
		{"after the end", end.Add(time.Hour), 0, true},
	} {
		retryIn, giveUp := unsentRetry(tc.now, since, window)
		if retryIn != tc.retryIn || giveUp != tc.giveUp {
			t.Errorf("%s: retry in %v, give up %v; want %v, %v", tc.name, retryIn, giveUp, tc.retryIn, tc.giveUp)
		}
	}
}

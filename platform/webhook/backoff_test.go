package webhook

import (
	"testing"
	"time"
)

// TestBackoffSchedule writes the production schedule down: the ceiling of
// the wait after each failed attempt, and the waits at both ends of the
// jitter.
func TestBackoffSchedule(t *testing.T) {
	b := DefaultBackoff
	for _, tc := range []struct {
		n       int
		ceiling time.Duration
	}{
		{1, 5 * time.Second},
		{2, 10 * time.Second},
		{3, 20 * time.Second},
		{4, 40 * time.Second},
		{5, 80 * time.Second},
		{6, 160 * time.Second},
		{8, 640 * time.Second},
		{10, 2560 * time.Second},  // about 43 min
		{12, 10240 * time.Second}, // about 2.8 h
		{14, 40960 * time.Second}, // about 11.4 h
		{15, 12 * time.Hour},      // the cap
		{40, 12 * time.Hour},
		{1000, 12 * time.Hour}, // no overflow
	} {
		if got := b.Ceiling(tc.n); got != tc.ceiling {
			t.Errorf("Ceiling(%d) = %v, want %v", tc.n, got, tc.ceiling)
		}
		if got := b.Delay(tc.n, 0); got != 0 {
			t.Errorf("Delay(%d, 0) = %v, want 0 (full jitter)", tc.n, got)
		}
		if got := b.Delay(tc.n, 0.5); got != tc.ceiling/2 {
			t.Errorf("Delay(%d, 0.5) = %v, want %v", tc.n, got, tc.ceiling/2)
		}
	}
}

func TestBackoffGivesUpAfterRetryFor(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Hour, RetryFor: 72 * time.Hour}
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	deadline := first.Add(b.RetryFor)
	for _, tc := range []struct {
		name  string
		now   time.Time
		n     int
		r     float64
		retry bool
		at    time.Time // zero: anywhere in [now, now+Ceiling(n)]
	}{
		{"first failure", first, 1, 0.5, true, time.Time{}},
		{"the ceiling fits", first.Add(71 * time.Hour), 30, 0.99, true, time.Time{}},
		{"a wait past the deadline is cut to it", first.Add(71*time.Hour + 30*time.Minute), 30, 0.99, true, deadline},
		{"a short wait is kept", first.Add(71*time.Hour + 30*time.Minute), 30, 0.1, true, first.Add(71*time.Hour + 36*time.Minute)},
		{"at the deadline", deadline, 30, 0, false, time.Time{}},
		{"after it", deadline.Add(time.Second), 30, 0, false, time.Time{}},
		{"long after", first.Add(100 * time.Hour), 2, 0, false, time.Time{}},
	} {
		at, ok := b.next(tc.n, first, tc.now, tc.r)
		if ok != tc.retry {
			t.Errorf("%s: next(%d, now=first+%v) retry=%v, want %v", tc.name, tc.n, tc.now.Sub(first), ok, tc.retry)
			continue
		}
		switch {
		case !ok:
		case !tc.at.IsZero() && !at.Equal(tc.at):
			t.Errorf("%s: next = first+%v, want first+%v", tc.name, at.Sub(first), tc.at.Sub(first))
		case at.Before(tc.now) || at.After(tc.now.Add(b.Ceiling(tc.n))) || at.After(deadline):
			t.Errorf("%s: next = first+%v, outside [now, min(now+%v, deadline)]", tc.name, at.Sub(first), b.Ceiling(tc.n))
		}
	}
}

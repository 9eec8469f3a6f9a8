package truckload

import (
	"slices"
	"time"
)

// Step is a change of the load at one instant: On units get on the truck
// (their reservations start, or the window does) and Off units get off
// (their reservations end, or the window does), all of one set of figures.
// Reservations is how many reservations get on.
type Step struct {
	At           time.Time
	On, Off      int
	Reservations int
	Figures
}

// Steps are the steps of lines over the window [start, end), in time
// order: each line gets on at the later of its start and the window's, and
// off at the earlier of its end and the window's. Windows are half-open, so
// a line ending at t and one starting at t never ride together: both steps
// are at t, and the load is measured after every step at t (Tally). A line
// with nothing inside the window gets on and off at one instant: it counts
// in the sums, never in the peaks.
func Steps(start, end time.Time, lines []Line) []Step {
	steps := make([]Step, 0, 2*len(lines))
	for _, l := range lines {
		on, off := later(l.Start, start), earlier(l.End, end)
		if !on.Before(off) {
			off = on
		}
		steps = append(steps,
			Step{At: on, On: l.Quantity, Reservations: max(l.Reservations, 1), Figures: l.Figures},
			Step{At: off, Off: l.Quantity, Figures: l.Figures})
	}
	slices.SortStableFunc(steps, func(a, b Step) int { return a.At.Compare(b.At) })
	return steps
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

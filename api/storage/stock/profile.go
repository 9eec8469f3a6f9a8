// Package stock states, once, how much of an equipment record is free over a
// window. The stock guard (api/reservations) admits a reservation of n units
// exactly when the availability endpoints (api/planning) report
// min_available ≥ n for its window, because both read the same holds
// (Holding, holds.go) and reduce them with the same function (Compute): the
// guard's count is the sum of every overlapping hold, and the step function
// beside it shows when inside the window the units are held. It also
// states which reservations are overdue before a window (OverdueBefore,
// overdue.go): checked out, ended, not back, and not counted by the rule;
// Answer reads both in one snapshot for the availability endpoints.
// docs/availability.md explains both.
package stock

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// Window is the half-open interval [Start, End). Two windows overlap when
// a.Start < b.End and b.Start < a.End, so windows that only touch do not
// (Holding states it in SQL).
type Window struct {
	Start, End time.Time
}

// Hold is a reservation that holds stock (status reserved or checked_out)
// during the window it was loaded for (Holding selects them).
type Hold struct {
	ID       uuid.UUID  `bun:"id"`
	EventID  *uuid.UUID `bun:"event_id"`
	Quantity int        `bun:"quantity"`
	Start    time.Time  `bun:"start_date"`
	End      time.Time  `bun:"end_date"`
}

// Interval is one step of the profile: over [Start, End) Reserved units are
// held and Available (nil when stock is unlimited) are free.
type Interval struct {
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Reserved  int       `json:"reserved"`
	Available *int      `json:"available"`
}

// Profile is the step function of one equipment record over a window.
type Profile struct {
	// Stock is the equipment's stock_quantity; nil means unlimited.
	Stock  *int
	Window Window
	// Intervals partition Window; consecutive intervals differ in Reserved.
	Intervals []Interval
	// Peak is the most units held at any instant of the window.
	Peak int
	// Held is the summed quantity of every hold overlapping the window: the
	// stock guard's count (docs/availability.md, "The stock rule"). It is at
	// least Peak, and more when bookings inside the window follow each other.
	Held int
	// MinAvailable is Stock − Held (nil when stock is unlimited): what the
	// stock guard admits over the whole window. It is negative when stock
	// was lowered below what is already held.
	MinAvailable *int
	// ReservationIDs and EventIDs name the holds (events once each), in the
	// order the holds were given.
	ReservationIDs, EventIDs []uuid.UUID
}

// Admits reports whether a reservation of n more units fits the window by
// the stock guard's rule: Held + n ≤ stock. Unlimited stock admits anything.
func (p Profile) Admits(n int) bool { return p.MinAvailable == nil || n <= *p.MinAvailable }

// Compute reduces the holds of one equipment record over w to its profile.
// Which reservations hold stock during w is decided once, in SQL (Holding):
// Compute takes holds as given, names each of them among the conflicts, and
// counts each only over the part of its window inside w.
func Compute(stockQuantity *int, w Window, holds []Hold) Profile {
	p := Profile{Stock: stockQuantity, Window: w, ReservationIDs: []uuid.UUID{}, EventIDs: []uuid.UUID{}}
	delta := map[time.Time]int{}
	seen := map[uuid.UUID]bool{}
	for _, h := range holds {
		p.ReservationIDs = append(p.ReservationIDs, h.ID)
		p.Held += h.Quantity
		if h.EventID != nil && !seen[*h.EventID] {
			seen[*h.EventID] = true
			p.EventIDs = append(p.EventIDs, *h.EventID)
		}
		if from, to := latest(h.Start, w.Start).UTC(), earliest(h.End, w.End).UTC(); from.Before(to) {
			delta[from] += h.Quantity
			delta[to] -= h.Quantity
		}
	}
	edges := []time.Time{w.Start.UTC(), w.End.UTC()}
	for t := range delta {
		edges = append(edges, t)
	}
	slices.SortFunc(edges, func(a, b time.Time) int { return a.Compare(b) })
	edges = slices.CompactFunc(edges, time.Time.Equal)

	held := 0
	for i := 0; i+1 < len(edges); i++ {
		held += delta[edges[i]]
		if n := len(p.Intervals); n > 0 && p.Intervals[n-1].Reserved == held {
			p.Intervals[n-1].End = edges[i+1] // the count did not change: one step
			continue
		}
		p.Intervals = append(p.Intervals, Interval{Start: edges[i], End: edges[i+1], Reserved: held, Available: free(stockQuantity, held)})
		p.Peak = max(p.Peak, held)
	}
	p.MinAvailable = free(stockQuantity, p.Held)
	return p
}

// free is stock − held, or nil for unlimited stock.
func free(stockQuantity *int, held int) *int {
	if stockQuantity == nil {
		return nil
	}
	n := *stockQuantity - held
	return &n
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

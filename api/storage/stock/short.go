package stock

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Shortage is what a stock quantity leaves short: the reservations holding
// units from now on that the stock guard would refuse at that stock, by
// the guard's own rule (each one's units plus those of every hold
// overlapping it must stay within stock). It is the details of the
// stock_below_reserved warning of an equipment PATCH
// (docs/availability.md, "Lowering stock").
type Shortage struct {
	StockQuantity int `json:"stock_quantity"`
	// Reserved is the largest of the short reservations' counts: the
	// units of one of them and of the holds overlapping it.
	Reserved int `json:"reserved"`
	// Deficit is Reserved − StockQuantity: how many more units would
	// let every reservation through the guard.
	Deficit                   int         `json:"deficit"`
	ConflictingReservationIDs []uuid.UUID `json:"conflicting_reservation_ids"`
	ConflictingEventIDs       []uuid.UUID `json:"conflicting_event_ids"`
	// WindowStart and WindowEnd span the short reservations.
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
}

// Short returns the shortage of holds at stockQuantity, or nil when each
// fits. A hold's count is the quantity of every hold overlapping it,
// itself included: the units held before it ends less those released by
// the time it starts (holds are half-open, so one that ends as another
// starts does not overlap it). The short ones are listed in holds' order.
func Short(stockQuantity int, holds []Hold) *Shortage {
	starts := make([]time.Time, len(holds))
	ends := make([]time.Time, len(holds))
	for i, h := range holds {
		starts[i], ends[i] = h.Start, h.End
	}
	startOrder, endOrder := byTime(starts, holds), byTime(ends, holds)
	var s *Shortage
	seen := map[uuid.UUID]bool{}
	for _, h := range holds {
		// Units of holds starting before h ends, less those of holds that
		// ended by the time h starts (each of those also started before).
		n := startOrder.before(h.End, false) - endOrder.before(h.Start, true)
		if n <= stockQuantity {
			continue
		}
		if s == nil {
			s = &Shortage{StockQuantity: stockQuantity, ConflictingReservationIDs: []uuid.UUID{},
				ConflictingEventIDs: []uuid.UUID{}, WindowStart: h.Start, WindowEnd: h.End}
		}
		s.Reserved = max(s.Reserved, n)
		s.ConflictingReservationIDs = append(s.ConflictingReservationIDs, h.ID)
		if h.EventID != nil && !seen[*h.EventID] {
			seen[*h.EventID] = true
			s.ConflictingEventIDs = append(s.ConflictingEventIDs, *h.EventID)
		}
		s.WindowStart = earliest(s.WindowStart, h.Start)
		s.WindowEnd = latest(s.WindowEnd, h.End)
	}
	if s != nil {
		s.Deficit = s.Reserved - stockQuantity
	}
	return s
}

// cumulative is a set of instants, sorted, with the running sum of the
// quantities of the holds they belong to.
type cumulative struct {
	at  []time.Time
	sum []int // sum[i]: the quantities of at[0..i]
}

func byTime(at []time.Time, holds []Hold) cumulative {
	idx := make([]int, len(at))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return at[a].Compare(at[b]) })
	c := cumulative{at: make([]time.Time, len(idx)), sum: make([]int, len(idx))}
	total := 0
	for i, j := range idx {
		total += holds[j].Quantity
		c.at[i], c.sum[i] = at[j], total
	}
	return c
}

// before returns the summed quantity of the instants before t (or at t
// too, with orAt).
func (c cumulative) before(t time.Time, orAt bool) int {
	n := sort.Search(len(c.at), func(i int) bool {
		if orAt {
			return c.at[i].After(t)
		}
		return !c.at[i].Before(t)
	})
	if n == 0 {
		return 0
	}
	return c.sum[n-1]
}

// farFuture ends the window of FutureHolds: after the last instant a date
// may name (the year 9999, docs/decisions.md).
var farFuture = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)

// FutureHolds loads the reservations of org's equipment that hold stock at
// now or later, in creation order.
func FutureHolds(ctx context.Context, db bun.IDB, org, equipment uuid.UUID, now time.Time) ([]Hold, error) {
	return Holds(ctx, db, org, equipment, Window{Start: now, End: farFuture}, uuid.Nil)
}

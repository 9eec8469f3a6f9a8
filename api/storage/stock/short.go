package stock

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/tenancy"
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
// fits. holds are the ones to report; among are the holds they are counted
// against: holds themselves and every other hold that may overlap one of
// them (FutureShortage loads them). A hold's count is the quantity of every
// hold of among overlapping it, itself included: the units held before it
// ends less those released by the time it starts (holds are half-open, so
// one that ends as another starts does not overlap it). The short ones are
// listed in holds' order; a hold only in among is never named.
func Short(stockQuantity int, holds, among []Hold) *Shortage {
	starts := make([]time.Time, len(among))
	ends := make([]time.Time, len(among))
	for i, h := range among {
		starts[i], ends[i] = h.Start, h.End
	}
	startOrder, endOrder := byTime(starts, among), byTime(ends, among)
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

// farFuture ends the window of FutureShortage: after the last instant a
// date may name (the year 9999, docs/decisions.md).
var farFuture = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)

// FutureShortage returns what stockQuantity leaves short among the
// reservations of org's equipment that hold stock at now or later
// (Holds from now on), or nil when each fits: ShortageIn over [now, the far
// future). Each is counted against every hold overlapping it, including
// holds that ended before now but still hold stock by their status: it is
// the guard that would refuse it. Only the ones from now on are named. The
// equipment row must be locked.
func FutureShortage(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, equipment uuid.UUID, stockQuantity int, now time.Time) (*Shortage, error) {
	return ShortageIn(ctx, db, org, equipment, stockQuantity, Window{Start: now, End: farFuture})
}

// ShortageIn returns what stockQuantity leaves short among the reservations
// of org's equipment that hold stock during window, or nil when each fits.
// Each is counted, as the guard counts it, against every hold overlapping
// it, loaded over the span of the holds themselves (which may reach outside
// window); only the ones overlapping window are named. The equipment row
// must be locked.
func ShortageIn(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, equipment uuid.UUID, stockQuantity int, window Window) (*Shortage, error) {
	holds, err := Holds(ctx, db, org, equipment, window, uuid.Nil)
	if err != nil || len(holds) == 0 {
		return nil, err
	}
	span := Window{Start: holds[0].Start, End: holds[0].End}
	for _, h := range holds[1:] {
		span = Window{Start: earliest(span.Start, h.Start), End: latest(span.End, h.End)}
	}
	// A hold overlapping one of holds overlaps their span.
	among, err := Holds(ctx, db, org, equipment, span, uuid.Nil)
	if err != nil {
		return nil, err
	}
	return Short(stockQuantity, holds, among), nil
}

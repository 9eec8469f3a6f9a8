package stock

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

// day 0 is 2026-05-01 08:00 UTC.
func at(day int) time.Time { return time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC).AddDate(0, 0, day) }

func hold(from, to, qty int) Hold {
	return Hold{ID: uuid.New(), Quantity: qty, Start: at(from), End: at(to)}
}

func ptr(n int) *int { return &n }

// steps renders intervals as "from-to:reserved/available" in days.
func steps(p Profile) string {
	var out []string
	for _, iv := range p.Intervals {
		avail := "∞"
		if iv.Available != nil {
			avail = fmt.Sprint(*iv.Available)
		}
		out = append(out, fmt.Sprintf("%d-%d:%d/%s", int(iv.Start.Sub(at(0)).Hours()/24), int(iv.End.Sub(at(0)).Hours()/24), iv.Reserved, avail))
	}
	return fmt.Sprint(out)
}

func TestCompute(t *testing.T) {
	tests := []struct {
		name     string
		stock    *int
		from, to int
		holds    []Hold
		want     string
		min      *int
		held     int // reservations named in the conflicts
	}{
		{"no holds", ptr(4), 1, 5, nil, "[1-5:0/4]", ptr(4), 0},
		{"one inside", ptr(4), 1, 5, []Hold{hold(2, 3, 3)}, "[1-2:0/4 2-3:3/1 3-5:0/4]", ptr(1), 1},
		{"clipped at both window edges", ptr(4), 2, 4, []Hold{hold(0, 3, 1), hold(3, 9, 2)}, "[2-3:1/3 3-4:2/2]", ptr(1), 2},
		// The guard sums every booking overlapping the window (3+3+2), although
		// back-to-back ones never hold together (the steps peak at 3).
		{"window straddling several bookings", ptr(6), 0, 10,
			[]Hold{hold(1, 3, 3), hold(3, 5, 3), hold(6, 8, 2)}, "[0-1:0/6 1-5:3/3 5-6:0/6 6-8:2/4 8-10:0/6]", ptr(-2), 3},
		{"overlapping bookings add up", ptr(6), 0, 10,
			[]Hold{hold(1, 5, 2), hold(3, 8, 3), hold(4, 6, 1)}, "[0-1:0/6 1-3:2/4 3-4:5/1 4-5:6/0 5-6:4/2 6-8:3/3 8-10:0/6]", ptr(0), 3},
		{"null stock: available is null", nil, 0, 4, []Hold{hold(1, 2, 7)}, "[0-1:0/∞ 1-2:7/∞ 2-4:0/∞]", nil, 1},
		{"stock lowered below what is held", ptr(2), 0, 2, []Hold{hold(0, 2, 3)}, "[0-2:3/-1]", ptr(-1), 1},
		{"back-to-back holds of the same size are one step", ptr(5), 0, 6, []Hold{hold(1, 3, 2), hold(3, 5, 2)}, "[0-1:0/5 1-5:2/3 5-6:0/5]", ptr(1), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Compute(tt.stock, Window{Start: at(tt.from), End: at(tt.to)}, tt.holds)
			if got := steps(p); got != tt.want {
				t.Errorf("intervals %s, want %s", got, tt.want)
			}
			if (p.MinAvailable == nil) != (tt.min == nil) || (p.MinAvailable != nil && *p.MinAvailable != *tt.min) {
				t.Errorf("min_available %v, want %v", deref(p.MinAvailable), deref(tt.min))
			}
			if len(p.ReservationIDs) != tt.held {
				t.Errorf("%d conflicting reservations, want %d", len(p.ReservationIDs), tt.held)
			}
			// Admits is exactly "n ≤ min_available".
			if tt.min != nil && (!p.Admits(*tt.min) || p.Admits(*tt.min+1)) {
				t.Errorf("Admits disagrees with min_available %d", *tt.min)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestComputeNamesEventsOnce: conflicting_event_ids lists each event once, in
// the order of the holds; holds without an event add none.
func TestComputeNamesEventsOnce(t *testing.T) {
	ev1, ev2 := uuid.New(), uuid.New()
	hs := []Hold{hold(0, 2, 1), hold(1, 3, 1), hold(2, 4, 1), hold(3, 5, 1)}
	hs[0].EventID, hs[1].EventID, hs[3].EventID = &ev2, &ev1, &ev2
	p := Compute(ptr(10), Window{Start: at(0), End: at(5)}, hs)
	if !slices.Equal(p.EventIDs, []uuid.UUID{ev2, ev1}) {
		t.Errorf("event ids %v, want [%s %s]", p.EventIDs, ev2, ev1)
	}
}

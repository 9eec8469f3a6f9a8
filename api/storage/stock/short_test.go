package stock

import (
	"slices"
	"testing"

	"github.com/google/uuid"
)

func TestShort(t *testing.T) {
	event := uuid.New()
	withEvent := func(h Hold) Hold { h.EventID = &event; return h }
	a, b, c, d := hold(0, 4, 3), hold(2, 6, 2), hold(6, 8, 4), hold(1, 3, 1)
	tests := []struct {
		name  string
		stock int
		holds []Hold
		// others are holds counted but not reported (Short's among is
		// holds and others): reservations that ended before now.
		others []Hold
		// short are the indexes of the holds the guard would refuse; nil: none.
		short            []int
		reserved         int
		windowFrom, toDy int
	}{
		{"nothing held", 0, nil, nil, nil, 0, 0, 0},
		{"each fits", 5, []Hold{a, b, c}, nil, nil, 0, 0, 0},
		// a and b overlap (3+2); c only touches b and holds 4 alone.
		{"two overlapping holds over stock", 4, []Hold{a, b, c}, nil, []int{0, 1}, 5, 0, 6},
		{"a hold over stock on its own", 3, []Hold{a, b, c}, nil, []int{0, 1, 2}, 5, 0, 8},
		// d overlaps a and b: each of the three counts 6.
		{"the guard's sum, not the peak", 5, []Hold{a, b, c, d}, nil, []int{0, 1, 3}, 6, 0, 6},
		{"touching holds do not add up", 4, []Hold{hold(0, 2, 4), hold(2, 4, 4)}, nil, nil, 0, 0, 0},
		{"zero stock leaves every hold short", 0, []Hold{c}, nil, []int{0}, 4, 6, 8},
		// A running reservation and one that ended but still holds stock:
		// the guard counts both, so the running one is short; the ended one
		// is short too but never named.
		{"an ended hold counts against a running one", 1, []Hold{hold(0, 4, 1)}, []Hold{hold(0, 1, 1)}, []int{0}, 2, 0, 4},
		{"ended holds add up against a running one", 2, []Hold{hold(0, 4, 1)}, []Hold{hold(0, 1, 1), hold(1, 2, 1)}, []int{0}, 3, 0, 4},
		{"an ended hold that only touches does not count", 1, []Hold{hold(2, 4, 1)}, []Hold{hold(0, 2, 1)}, nil, 0, 0, 0},
		// Only c is reported: a and b overlap each other over stock, not c.
		{"ended holds short among themselves name nothing", 4, []Hold{c}, []Hold{a, b}, nil, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Short(tt.stock, tt.holds, append(slices.Clone(tt.holds), tt.others...))
			if tt.short == nil {
				if s != nil {
					t.Fatalf("Short = %+v, want nil", s)
				}
				return
			}
			if s == nil {
				t.Fatal("Short = nil, want a shortage")
			}
			var want []uuid.UUID
			for _, i := range tt.short {
				want = append(want, tt.holds[i].ID)
			}
			if !slices.Equal(s.ConflictingReservationIDs, want) {
				t.Errorf("reservations = %v, want %v", s.ConflictingReservationIDs, want)
			}
			if s.StockQuantity != tt.stock || s.Reserved != tt.reserved || s.Deficit != tt.reserved-tt.stock {
				t.Errorf("stock %d reserved %d deficit %d, want %d %d %d", s.StockQuantity, s.Reserved, s.Deficit,
					tt.stock, tt.reserved, tt.reserved-tt.stock)
			}
			if !s.WindowStart.Equal(at(tt.windowFrom)) || !s.WindowEnd.Equal(at(tt.toDy)) {
				t.Errorf("window %v–%v, want days %d–%d", s.WindowStart, s.WindowEnd, tt.windowFrom, tt.toDy)
			}
		})
	}
	t.Run("events named once", func(t *testing.T) {
		holds := []Hold{withEvent(hold(0, 2, 1)), withEvent(hold(1, 3, 1)), hold(1, 2, 1)}
		s := Short(1, holds, holds)
		if s == nil || len(s.ConflictingReservationIDs) != 3 || !slices.Equal(s.ConflictingEventIDs, []uuid.UUID{event}) {
			t.Fatalf("Short = %+v, want three reservations and the one event", s)
		}
	})
}

package truckload

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// hour h is 2027-06-07 00:00 UTC plus h hours.
func hour(h int) time.Time {
	return time.Date(2027, 6, 7, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour)
}

// TestPeak: the sums count every line overlapping the window whole, the
// peaks the most on the truck at one instant of the window, and over_* is
// decided by the peaks.
func TestPeak(t *testing.T) {
	truck := Limits{MaxPayloadLbs: n(10000), LengthIn: n(100), WidthIn: n(10), HeightIn: n(10)} // 10,000 in³
	// deck: 600 lb, 100 in³ a unit; box: 50 lb, 10 in³.
	deck := Figures{WeightLbs: f(600), LengthIn: f(10), WidthIn: f(10), HeightIn: f(1)}
	box := Figures{WeightLbs: f(50), LengthIn: f(10), WidthIn: f(1), HeightIn: f(1)}
	on := func(fig Figures, q, from, to int) Line {
		return Line{Quantity: q, Start: hour(from), End: hour(to), Figures: fig}
	}
	week := [2]int{0, 168}
	tests := []struct {
		name               string
		window             [2]int
		lines              []Line
		payload, peakP     float64
		volume, peakV      float64
		overP, overV       bool
		unknownW, unknownV int
	}{
		{"empty truck", week, nil, 0, 0, 0, 0, false, false, 0, 0},
		// Two 6,000 lb trips and a 50 lb toolbox all week.
		{"two trips and a toolbox all week", week, []Line{on(deck, 10, 6, 44), on(deck, 10, 54, 92), on(box, 1, 0, 120)},
			12050, 6050, 2010, 1010, false, false, 0, 0},
		{"a third trip overlapping both", week, []Line{on(deck, 10, 6, 44), on(deck, 10, 54, 92), on(box, 1, 0, 120), on(deck, 10, 40, 60)},
			18050, 12050, 3010, 2010, true, false, 0, 0},
		// [6, 44) and [44, 80): the first is off at 44 when the second gets on.
		{"back to back never ride together", week, []Line{on(deck, 10, 6, 44), on(deck, 10, 44, 80), on(box, 1, 0, 120)},
			12050, 6050, 2010, 1010, false, false, 0, 0},
		{"back to back, the later given first", week, []Line{on(deck, 10, 44, 80), on(box, 1, 0, 120), on(deck, 10, 6, 44)},
			12050, 6050, 2010, 1010, false, false, 0, 0},
		{"overlapping by one hour", week, []Line{on(deck, 10, 6, 45), on(deck, 10, 44, 80)},
			12000, 12000, 2000, 2000, true, false, 0, 0},
		{"identical instants add up", week, []Line{on(deck, 5, 10, 20), on(deck, 5, 10, 20), on(box, 2, 10, 20)},
			6100, 6100, 1020, 1020, false, false, 0, 0},
		{"exactly at the limit is not over", week, []Line{on(deck, 10, 0, 10), on(box, 80, 5, 10)},
			10000, 10000, 1800, 1800, false, false, 0, 0},
		// Volume peaks apart from weight: 80 boxes (800 in³) alone, 10
		// decks (1,000 in³) alone, never together.
		{"the peaks are each figure's own", week, []Line{on(box, 80, 0, 10), on(deck, 10, 10, 20), on(Figures{LengthIn: f(10), WidthIn: f(10), HeightIn: f(90)}, 1, 0, 10)},
			10000, 6000, 10800, 9800, false, false, 1, 0},
		{"volume over at one instant", week, []Line{on(Figures{LengthIn: f(100), WidthIn: f(10), HeightIn: f(5)}, 2, 0, 10), on(box, 1, 9, 20)},
			50, 50, 10010, 10010, false, true, 1, 0},
		// The window [50, 60): the trips clip to [50, 60) and [54, 60).
		{"clipped to the window", [2]int{50, 60}, []Line{on(deck, 10, 6, 52), on(deck, 10, 54, 92), on(box, 1, 0, 120)},
			12050, 6050, 2010, 1010, false, false, 0, 0},
		// Given lines wholly outside the window (the database never selects
		// them), they ride together there, not in it.
		{"lines outside the window count in the sums only", [2]int{50, 60}, []Line{on(deck, 10, 0, 50), on(deck, 10, 10, 50), on(deck, 10, 60, 70), on(deck, 10, 55, 56)},
			24000, 6000, 4000, 1000, false, false, 0, 0},
		{"unknown figures are counted, not carried", week, []Line{on(deck, 10, 0, 10), on(Figures{}, 99, 5, 10), {Quantity: 4, Reservations: 3, Start: hour(5), End: hour(8)}},
			6000, 6000, 1000, 1000, false, false, 4, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sum(uuid.Nil, hour(tt.window[0]), hour(tt.window[1]), truck, tt.lines)
			if got.PayloadLbs != tt.payload || got.PeakPayloadLbs != tt.peakP || got.CargoVolumeCuin != tt.volume || got.PeakCargoVolumeCuin != tt.peakV ||
				got.OverPayload != tt.overP || got.OverVolume != tt.overV || got.UnknownWeightCount != tt.unknownW || got.UnknownVolumeCount != tt.unknownV {
				t.Errorf("got %+v", got)
			}
		})
	}
}

// TestTallyInAnyOrderWithinAnInstant: the steps of one instant may come in
// any order (the database sends them sorted by instant only): the load is
// measured after all of them.
func TestTallyInAnyOrderWithinAnInstant(t *testing.T) {
	deck := Figures{WeightLbs: f(600)}
	for _, order := range [][]Step{
		{{At: hour(0), On: 10, Reservations: 1, Figures: deck}, {At: hour(1), Off: 10, Figures: deck}, {At: hour(1), On: 10, Reservations: 1, Figures: deck}, {At: hour(2), Off: 10, Figures: deck}},
		{{At: hour(0), On: 10, Reservations: 1, Figures: deck}, {At: hour(1), On: 10, Reservations: 1, Figures: deck}, {At: hour(1), Off: 10, Figures: deck}, {At: hour(2), Off: 10, Figures: deck}},
		{{At: hour(0), On: 10, Reservations: 1, Figures: deck}, {At: hour(1), On: 10, Off: 10, Reservations: 1, Figures: deck}, {At: hour(2), Off: 10, Figures: deck}},
	} {
		var tally Tally
		for _, s := range order {
			tally.Add(s)
		}
		if got := tally.Totals(uuid.Nil, hour(0), hour(2), Limits{MaxPayloadLbs: n(6000)}); got.PayloadLbs != 12000 || got.PeakPayloadLbs != 6000 || got.OverPayload {
			t.Errorf("%v: got %+v", order, got)
		}
	}
}

// TestDecimalFigures: each figure counts as the decimal entered, not its
// float64's binary value: 1.005 (1.00499999999999989… in binary) rounds to
// 1.01, over a 1 lb / 1 in³ limit, and 3 × 0.1 is 0.3.
func TestDecimalFigures(t *testing.T) {
	w := [2]time.Time{hour(0), hour(1)}
	tests := []struct {
		name            string
		lim             Limits
		fig             Figures
		q               int
		payload, volume float64
		overP, overV    bool
	}{
		{"1.005 lb and 1.005 in³ on a 1 lb, 1 in³ cart", Limits{MaxPayloadLbs: n(1), LengthIn: n(1), WidthIn: n(1), HeightIn: n(1)},
			Figures{WeightLbs: f(1.005), LengthIn: f(1.005), WidthIn: f(1), HeightIn: f(1)}, 1, 1.01, 1.01, true, true},
		{"1.004 lb is not over", Limits{MaxPayloadLbs: n(1)}, Figures{WeightLbs: f(1.004)}, 1, 1, 0, false, false},
		{"2.675 lb rounds up (2.67499999… in binary)", Limits{MaxPayloadLbs: n(3)}, Figures{WeightLbs: f(2.675)}, 1, 2.68, 0, false, false},
		{"1.005 in each way is 1.015075125 in³", Limits{LengthIn: n(1), WidthIn: n(1), HeightIn: n(1)},
			Figures{LengthIn: f(1.005), WidthIn: f(1.005), HeightIn: f(1.005)}, 1, 0, 1.02, false, true},
		{"3 × 0.1 lb is 0.3", Limits{MaxPayloadLbs: n(1)}, Figures{WeightLbs: f(0.1)}, 3, 0.3, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sum(uuid.Nil, w[0], w[1], tt.lim, []Line{{Quantity: tt.q, Start: w[0], End: w[1], Figures: tt.fig}})
			if got.PayloadLbs != tt.payload || got.PeakPayloadLbs != tt.payload || got.CargoVolumeCuin != tt.volume ||
				got.OverPayload != tt.overP || got.OverVolume != tt.overV {
				t.Errorf("got %+v", got)
			}
		})
	}
}

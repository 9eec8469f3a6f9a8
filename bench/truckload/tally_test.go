// Package truckloadbench benchmarks the truck load's tally (api/storage/truckload):
// the steps of a busy truck's reservations added up into its sums and peaks,
// as a reservation write's warning reads them.
//
//	go test -run '^$' -bench . -benchtime 20x -count 3 ./bench/truckload/
package truckloadbench

import (
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/storage/truckload"
)

// BenchmarkTally adds the steps of 10,000 reservations of 20 kinds of
// equipment (figures with one and two decimals) over a week, as a write's
// warning reads them from a busy truck, and takes the totals.
func BenchmarkTally(b *testing.B) {
	start := time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	lines := make([]truckload.Line, 10_000)
	for i := range lines {
		w, l, d, h := 50+float64(i%20)*12.5, 48.25, 24.0, 30+float64(i%7)*0.05
		from := start.Add(time.Duration(i%168) * time.Hour)
		lines[i] = truckload.Line{Quantity: 1 + i%4, Start: from, End: from.Add(time.Duration(1+i%48) * time.Hour),
			Figures: truckload.Figures{WeightLbs: &w, LengthIn: &l, WidthIn: &d, HeightIn: &h}}
	}
	steps := truckload.Steps(start, start.AddDate(0, 0, 7), lines)
	b.ReportAllocs()
	for b.Loop() {
		var t truckload.Tally
		for _, s := range steps {
			t.Add(s)
		}
		_ = t.Totals([16]byte{}, start, start.AddDate(0, 0, 7), truckload.Limits{})
	}
}

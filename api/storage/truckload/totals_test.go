package truckload

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

func f(x float64) *float64 { return &x }
func n(x int) *int         { return &x }

func TestSum(t *testing.T) {
	crate := Line{Quantity: 1, Figures: Figures{WeightLbs: f(100), LengthIn: f(10), WidthIn: f(10), HeightIn: f(10)}}
	van := Limits{MaxPayloadLbs: n(1000), LengthIn: n(10), WidthIn: n(10), HeightIn: n(100)}
	times := func(l Line, q int) Line { l.Quantity = q; return l }
	cube := func(side int) Limits { return Limits{LengthIn: n(side), WidthIn: n(side), HeightIn: n(side)} }
	inch := Line{Quantity: 1, Figures: Figures{LengthIn: f(1), WidthIn: f(1), HeightIn: f(1)}}
	// 2^63 in³, as a case of 2097152 in each way, and 2048 in³ more.
	twoTo63 := Line{Quantity: 1, Figures: Figures{LengthIn: f(2097152), WidthIn: f(2097152), HeightIn: f(2097152)}}
	more := Line{Quantity: 1, Figures: Figures{LengthIn: f(2048), WidthIn: f(1), HeightIn: f(1)}}
	// 10^27 in³ (past 2^53, and 10^9 is exact in float64) and 200009³ in³
	// (below 2^53, but ×100 passes it).
	billion := Line{Quantity: 1, Figures: Figures{LengthIn: f(1e9), WidthIn: f(1e9), HeightIn: f(1e9)}}
	side := Line{Quantity: 1, Figures: Figures{LengthIn: f(200009), WidthIn: f(200009), HeightIn: f(200009)}}
	lbs := func(ws ...float64) (ls []Line) {
		for _, w := range ws {
			ls = append(ls, Line{Quantity: 1, Figures: Figures{WeightLbs: f(w)}})
		}
		return ls
	}
	tests := []struct {
		name               string
		lim                Limits
		lines              []Line
		payload, volume    float64
		overP, overV       bool
		unknownW, unknownV int
		interior           string // as sent in JSON
	}{
		{"empty truck", van, nil, 0, 0, false, false, 0, 0, "10000"},
		{"exactly at both limits", van, []Line{times(crate, 10)}, 1000, 10000, false, false, 0, 0, "10000"},
		{"one over both", van, []Line{times(crate, 11)}, 1100, 11000, true, true, 0, 0, "10000"},
		{"mixed known and unknown figures", van, []Line{
			times(crate, 3),
			{Quantity: 2, Figures: Figures{WeightLbs: f(90)}},                                 // no dimensions
			{Quantity: 5, Figures: Figures{LengthIn: f(20), WidthIn: f(20), HeightIn: f(12)}}, // no weight
			{Quantity: 1, Figures: Figures{LengthIn: f(30), HeightIn: f(10)}},                 // neither
		}, 480, 3000 + 24000, false, true, 2, 2, "10000"},
		// 0.7 + 2.2 + 2.2 + 0.9 is 6.000000000000001 in float64, 6 in decimals: exactly full, not over.
		{"floating point noise is rounded away", Limits{MaxPayloadLbs: n(6)}, []Line{
			{Quantity: 1, Figures: Figures{WeightLbs: f(0.7)}}, {Quantity: 2, Figures: Figures{WeightLbs: f(2.2)}}, {Quantity: 1, Figures: Figures{WeightLbs: f(0.9)}},
		}, 6, 0, false, false, 0, 3, "null"},
		{"unknown limits are never over", Limits{LengthIn: n(10), WidthIn: n(10)}, []Line{times(crate, 1000)}, 100000, 1000000, false, false, 0, 0, "null"},
		// Interior dimensions go up to 2147483647 in, so the interior volume
		// passes int64 (2^63 - 1) and the integers float64 holds exactly.
		{"an interior of 2097152 in each way is 2^63", cube(2097152), []Line{inch}, 0, 1, false, false, 1, 0, "9223372036854775808"},
		{"the largest interior, exactly", cube(2147483647), []Line{inch}, 0, 1, false, false, 1, 0, "9903520300447984150353281023"},
		{"exactly at an interior of 2^63", cube(2097152), []Line{twoTo63}, 0, 1 << 63, false, false, 1, 0, "9223372036854775808"},
		{"2048 in³ over an interior of 2^63", cube(2097152), []Line{twoTo63, more}, 0, 1<<63 + 2048, false, true, 2, 0, "9223372036854775808"},
		// Sums are exact and rounded to hundredths exactly, whatever their size.
		{"exactly at an interior of 10^27", cube(1e9), []Line{billion}, 0, 1e27, false, false, 1, 0, "1000000000000000000000000000"},
		{"exactly at an interior of 3 × 10^27", Limits{LengthIn: n(1.5e9), WidthIn: n(2e9), HeightIn: n(1e9)}, []Line{times(billion, 3)}, 0, 3e27, false, false, 1, 0, "3000000000000000000000000000"},
		{"0.004 in³ over 3 × 10^27 rounds away", Limits{LengthIn: n(1.5e9), WidthIn: n(2e9), HeightIn: n(1e9)}, []Line{times(billion, 3), {Quantity: 1, Figures: Figures{LengthIn: f(0.004), WidthIn: f(1), HeightIn: f(1)}}}, 0, 3e27, false, false, 2, 0, "3000000000000000000000000000"},
		{"0.01 in³ over 3 × 10^27", Limits{LengthIn: n(1.5e9), WidthIn: n(2e9), HeightIn: n(1e9)}, []Line{times(billion, 3), {Quantity: 1, Figures: Figures{LengthIn: f(0.01), WidthIn: f(1), HeightIn: f(1)}}}, 0, 3e27, false, true, 2, 0, "3000000000000000000000000000"},
		{"exactly at an interior of 200009³", cube(200009), []Line{side}, 0, 200009 * 200009 * 200009, false, false, 1, 0, "8001080048600729"},
		{"1 in³ over an interior of 200009³", cube(200009), []Line{side, inch}, 0, 200009*200009*200009 + 1, false, true, 2, 0, "8001080048600729"},
		// 10.1 in is 10.0999999999999996447… in float64, read as the decimal 10.1.
		{"decimal dimensions exactly at the limit", Limits{LengthIn: n(1010), WidthIn: n(1), HeightIn: n(1)}, []Line{{Quantity: 1, Figures: Figures{LengthIn: f(10.1), WidthIn: f(10), HeightIn: f(10)}}}, 0, 1010, false, false, 1, 0, "1010"},
		// 0.1 + 0.2 + 0.7 of the float64s is 1.0000000000000000222…, of the decimals 1.
		{"0.1 + 0.2 + 0.7 lb exactly at the limit", Limits{MaxPayloadLbs: n(1)}, lbs(0.1, 0.2, 0.7), 1, 0, false, false, 0, 3, "null"},
		{"0.01 lb over the limit", Limits{MaxPayloadLbs: n(1)}, lbs(0.1, 0.2, 0.7, 0.01), 1.01, 0, true, false, 0, 4, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every line rides over the whole window: the peaks are the sums.
			start, end := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), time.Date(2026, 5, 2, 8, 0, 0, 0, time.UTC)
			lines := slices.Clone(tt.lines)
			for i := range lines {
				lines[i].Start, lines[i].End = start, end
			}
			got := Sum(uuid.Nil, start, end, tt.lim, lines)
			if got.PayloadLbs != tt.payload || got.CargoVolumeCuin != tt.volume || got.OverPayload != tt.overP || got.OverVolume != tt.overV ||
				got.PeakPayloadLbs != tt.payload || got.PeakCargoVolumeCuin != tt.volume ||
				got.UnknownWeightCount != tt.unknownW || got.UnknownVolumeCount != tt.unknownV {
				t.Errorf("got %+v", got)
			}
			if b, err := json.Marshal(got.InteriorVolumeCuin); err != nil || string(b) != tt.interior {
				t.Errorf("interior volume %s (%v), want %s", b, err, tt.interior)
			}
		})
	}
}

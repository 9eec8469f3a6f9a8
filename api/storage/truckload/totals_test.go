package truckload

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func f(x float64) *float64 { return &x }
func n(x int) *int         { return &x }

func TestSum(t *testing.T) {
	crate := Line{Quantity: 1, WeightLbs: f(100), LengthIn: f(10), WidthIn: f(10), HeightIn: f(10)}
	van := Limits{MaxPayloadLbs: n(1000), LengthIn: n(10), WidthIn: n(10), HeightIn: n(100)}
	times := func(l Line, q int) Line { l.Quantity = q; return l }
	tests := []struct {
		name               string
		lim                Limits
		lines              []Line
		payload, volume    float64
		overP, overV       bool
		unknownW, unknownV int
		interior           *int64
	}{
		{"empty truck", van, nil, 0, 0, false, false, 0, 0, ptr64(10000)},
		{"exactly at both limits", van, []Line{times(crate, 10)}, 1000, 10000, false, false, 0, 0, ptr64(10000)},
		{"one over both", van, []Line{times(crate, 11)}, 1100, 11000, true, true, 0, 0, ptr64(10000)},
		{"mixed known and unknown figures", van, []Line{
			times(crate, 3),
			{Quantity: 2, WeightLbs: f(90)}, // no dimensions
			{Quantity: 5, LengthIn: f(20), WidthIn: f(20), HeightIn: f(12)}, // no weight
			{Quantity: 1, LengthIn: f(30), HeightIn: f(10)},                 // neither
		}, 480, 3000 + 24000, false, true, 2, 2, ptr64(10000)},
		// 0.7 + 2.2 + 2.2 + 0.9 is 6.000000000000001 in float64: exactly full, not over.
		{"floating point noise is rounded away", Limits{MaxPayloadLbs: n(6)}, []Line{
			{Quantity: 1, WeightLbs: f(0.7)}, {Quantity: 2, WeightLbs: f(2.2)}, {Quantity: 1, WeightLbs: f(0.9)},
		}, 6, 0, false, false, 0, 3, nil},
		{"unknown limits are never over", Limits{LengthIn: n(10), WidthIn: n(10)}, []Line{times(crate, 1000)}, 100000, 1000000, false, false, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sum(uuid.Nil, time.Time{}, time.Time{}, tt.lim, tt.lines)
			if got.PayloadLbs != tt.payload || got.CargoVolumeCuin != tt.volume || got.OverPayload != tt.overP || got.OverVolume != tt.overV ||
				got.UnknownWeightCount != tt.unknownW || got.UnknownVolumeCount != tt.unknownV {
				t.Errorf("got %+v", got)
			}
			if (got.InteriorVolumeCuin == nil) != (tt.interior == nil) || (tt.interior != nil && *got.InteriorVolumeCuin != *tt.interior) {
				t.Errorf("interior volume %v, want %v", got.InteriorVolumeCuin, tt.interior)
			}
		})
	}
}

func ptr64(x int64) *int64 { return &x }

// Package truckload answers "does this truck still take the weight and the
// cube?": the payload and cargo volume of the reservations assigned to a
// vehicle over a window, against the vehicle's payload and interior volume.
// The load endpoint (api/planning) reports it and reservation writes
// (api/reservations) warn when an assignment leaves a truck over either
// limit. docs/availability.md explains the figures.
package truckload

import (
	"math"
	"math/big"
	"time"

	"github.com/google/uuid"
)

// Line is one reservation on the truck with its equipment's figures (nil
// when the equipment lacks them).
type Line struct {
	Quantity  int
	WeightLbs *float64
	// Case dimensions in inches.
	LengthIn, WidthIn, HeightIn *float64
}

// Limits are the vehicle's capacity; nil figures are unknown.
type Limits struct {
	MaxPayloadLbs *int
	// Interior dimensions in inches.
	LengthIn, WidthIn, HeightIn *int
}

// Totals is the load of one vehicle over a window.
type Totals struct {
	VehicleID   uuid.UUID `json:"vehicle_id"`
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// PayloadLbs is Σ quantity × weight_lbs over the lines with a weight.
	PayloadLbs    float64 `json:"payload_lbs"`
	MaxPayloadLbs *int    `json:"max_payload_lbs"`
	// CargoVolumeCuin is Σ quantity × case length × width × height over the
	// lines with all three dimensions.
	CargoVolumeCuin float64 `json:"cargo_volume_cuin"`
	// InteriorVolumeCuin is length × width × height of the interior, exactly:
	// with each up to 2147483647 in it reaches (2^31 - 1)^3, about 9.9e27,
	// past int64 and past the integers a float64 holds. It is written as a
	// JSON integer of all its digits.
	InteriorVolumeCuin *big.Int `json:"interior_volume_cuin"`
	// OverPayload and OverVolume are true when a known limit is exceeded
	// (never when the limit is unknown).
	OverPayload bool `json:"over_payload"`
	OverVolume  bool `json:"over_volume"`
	// UnknownWeightCount and UnknownVolumeCount count the lines left out of
	// the sums because their equipment lacks the figure.
	UnknownWeightCount int `json:"unknown_weight_count"`
	UnknownVolumeCount int `json:"unknown_volume_count"`
}

// Sum totals lines against the vehicle's limits. Sums are rounded to
// hundredths (of a pound, of a cubic inch) before they are compared, so the
// noise of binary floating point never decides over_payload or over_volume.
func Sum(vehicle uuid.UUID, start, end time.Time, lim Limits, lines []Line) Totals {
	t := Totals{VehicleID: vehicle, WindowStart: start, WindowEnd: end, MaxPayloadLbs: lim.MaxPayloadLbs}
	if lim.LengthIn != nil && lim.WidthIn != nil && lim.HeightIn != nil {
		v := big.NewInt(int64(*lim.LengthIn))
		v.Mul(v, big.NewInt(int64(*lim.WidthIn)))
		t.InteriorVolumeCuin = v.Mul(v, big.NewInt(int64(*lim.HeightIn)))
	}
	for _, l := range lines {
		q := float64(l.Quantity)
		if l.WeightLbs == nil {
			t.UnknownWeightCount++
		} else {
			t.PayloadLbs += q * *l.WeightLbs
		}
		if l.LengthIn == nil || l.WidthIn == nil || l.HeightIn == nil {
			t.UnknownVolumeCount++
		} else {
			t.CargoVolumeCuin += q * *l.LengthIn * *l.WidthIn * *l.HeightIn
		}
	}
	t.PayloadLbs, t.CargoVolumeCuin = hundredths(t.PayloadLbs), hundredths(t.CargoVolumeCuin)
	t.OverPayload = t.MaxPayloadLbs != nil && t.PayloadLbs > float64(*t.MaxPayloadLbs)
	t.OverVolume = t.InteriorVolumeCuin != nil && exceeds(t.CargoVolumeCuin, t.InteriorVolumeCuin)
	return t
}

// exceeds reports x > n exactly: a big.Float holds both without rounding
// (float64(n) would round an n past 2^53).
func exceeds(x float64, n *big.Int) bool {
	return big.NewFloat(x).Cmp(new(big.Float).SetInt(n)) > 0
}

func hundredths(x float64) float64 { return math.Round(x*100) / 100 }

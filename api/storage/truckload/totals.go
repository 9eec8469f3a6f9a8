// Package truckload answers "does this truck still take the weight and the
// cube?": the payload and cargo volume of the reservations assigned to a
// vehicle over a window, against the vehicle's payload and interior volume.
// The load endpoint (api/planning) reports it and reservation writes
// (api/reservations) warn when an assignment leaves a truck over either
// limit. docs/availability.md explains the figures.
package truckload

import (
	"math/big"
	"time"

	"github.com/google/uuid"
)

// Line is one reservation on the truck with its equipment's figures (nil
// when the equipment lacks them), or several reservations of one equipment
// with their quantities summed: the totals are the same either way.
type Line struct {
	Quantity int
	// Reservations is how many reservations the line stands for, each
	// counted once when its equipment lacks a figure (0: one).
	Reservations int
	WeightLbs    *float64
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

// Sum totals lines against the vehicle's limits. Sums are computed exactly and
// rounded to hundredths (of a pound, of a cubic inch) before they are
// compared, so the noise of binary floating point never decides over_payload
// or over_volume, however large the sum.
func Sum(vehicle uuid.UUID, start, end time.Time, lim Limits, lines []Line) Totals {
	t := Totals{VehicleID: vehicle, WindowStart: start, WindowEnd: end, MaxPayloadLbs: lim.MaxPayloadLbs}
	if lim.LengthIn != nil && lim.WidthIn != nil && lim.HeightIn != nil {
		v := big.NewInt(int64(*lim.LengthIn))
		v.Mul(v, big.NewInt(int64(*lim.WidthIn)))
		t.InteriorVolumeCuin = v.Mul(v, big.NewInt(int64(*lim.HeightIn)))
	}
	var payload, cargo big.Rat
	for _, l := range lines {
		if l.WeightLbs == nil {
			t.UnknownWeightCount += l.count()
		} else {
			payload.Add(&payload, product(l.Quantity, *l.WeightLbs))
		}
		if l.LengthIn == nil || l.WidthIn == nil || l.HeightIn == nil {
			t.UnknownVolumeCount += l.count()
		} else {
			cargo.Add(&cargo, product(l.Quantity, *l.LengthIn, *l.WidthIn, *l.HeightIn))
		}
	}
	var maxPayload *big.Int
	if lim.MaxPayloadLbs != nil {
		maxPayload = big.NewInt(int64(*lim.MaxPayloadLbs))
	}
	t.PayloadLbs, t.OverPayload = total(&payload, maxPayload)
	t.CargoVolumeCuin, t.OverVolume = total(&cargo, t.InteriorVolumeCuin)
	return t
}

// product is q × xs exactly: a finite float64 converts to a big.Rat without
// rounding. (SetFloat64 gives nil, and Mul then panics, for NaN or ±Inf; the
// API writes the figures from JSON, which has neither.)
// count is how many reservations l stands for.
func (l Line) count() int { return max(l.Reservations, 1) }

func product(q int, xs ...float64) *big.Rat {
	p := new(big.Rat).SetInt64(int64(q))
	for _, x := range xs {
		p.Mul(p, new(big.Rat).SetFloat64(x))
	}
	return p
}

// total rounds an exact sum to hundredths, half away from zero (as
// math.Round), and reports it as the nearest float64 and whether it exceeds
// limit, compared exactly (never when limit is nil, unknown).
func total(sum *big.Rat, limit *big.Int) (float64, bool) {
	// sum × 100 = q + r/d with q, r truncated toward zero; a remainder of
	// half or more rounds q one further from zero.
	d := sum.Denom()
	q, r := new(big.Int).QuoRem(new(big.Int).Mul(sum.Num(), big.NewInt(100)), d, new(big.Int))
	if r.Lsh(r.Abs(r), 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(int64(sum.Sign())))
	}
	rounded := new(big.Rat).SetFrac(q, big.NewInt(100))
	f, _ := rounded.Float64()
	return f, limit != nil && rounded.Cmp(new(big.Rat).SetInt(limit)) > 0
}

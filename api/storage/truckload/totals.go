// Package truckload answers "does this truck still take the weight and the
// cube?": the payload and cargo volume of the reservations assigned to a
// vehicle over a window, against the vehicle's payload and interior volume.
// The load endpoint (api/planning) reports it and reservation writes
// (api/reservations) warn when an assignment leaves a truck over either
// limit. Two figures come of the same reservations: the sums over the window
// (payload_lbs, cargo_volume_cuin, the binding rule's Σ) and the peaks, the
// most the truck carries at any one instant of it, which decide
// over_payload and over_volume. docs/availability.md explains the figures.
package truckload

import (
	"math/big"
	"time"

	"github.com/google/uuid"
)

// Figures are an equipment's weight and case dimensions (inches), nil when
// the equipment lacks them.
type Figures struct {
	WeightLbs                   *float64
	LengthIn, WidthIn, HeightIn *float64
}

// Line is one reservation on the truck, its window [Start, End) and its
// equipment's figures, or several reservations of one equipment over one
// window with their quantities summed: the totals are the same either way.
type Line struct {
	Quantity int
	// Reservations is how many reservations the line stands for, each
	// counted once when its equipment lacks a figure (0: one).
	Reservations int
	Start, End   time.Time
	Figures
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
	// PayloadLbs is Σ quantity × weight_lbs over the lines with a weight,
	// every line overlapping the window counted whole, whether or not they
	// ride together.
	PayloadLbs float64 `json:"payload_lbs"`
	// PeakPayloadLbs is the most weight on the truck at any one instant of
	// the window: at most PayloadLbs, and less when lines follow each other.
	PeakPayloadLbs float64 `json:"peak_payload_lbs"`
	MaxPayloadLbs  *int    `json:"max_payload_lbs"`
	// CargoVolumeCuin is Σ quantity × case length × width × height over the
	// lines with all three dimensions.
	CargoVolumeCuin float64 `json:"cargo_volume_cuin"`
	// PeakCargoVolumeCuin is the most cargo volume at any one instant.
	PeakCargoVolumeCuin float64 `json:"peak_cargo_volume_cuin"`
	// InteriorVolumeCuin is length × width × height of the interior, exactly:
	// with each up to 2147483647 in it reaches (2^31 - 1)^3, about 9.9e27,
	// past int64 and past the integers a float64 holds. It is written as a
	// JSON integer of all its digits.
	InteriorVolumeCuin *big.Int `json:"interior_volume_cuin"`
	// OverPayload and OverVolume are true when the peak exceeds a known
	// limit (never when the limit is unknown): at some instant the truck
	// carries more than it takes.
	OverPayload bool `json:"over_payload"`
	OverVolume  bool `json:"over_volume"`
	// UnknownWeightCount and UnknownVolumeCount count the lines left out of
	// the sums because their equipment lacks the figure.
	UnknownWeightCount int `json:"unknown_weight_count"`
	UnknownVolumeCount int `json:"unknown_volume_count"`
}

// Sum totals lines, which overlap the window w, against the vehicle's
// limits: each line counts whole in the sums and over its part inside w in
// the peaks. It turns the lines into their steps and runs them through a
// Tally, as the database's steps of a write's warning are (Tally).
func Sum(vehicle uuid.UUID, start, end time.Time, lim Limits, lines []Line) Totals {
	var tally Tally
	for _, s := range Steps(start, end, lines) {
		tally.Add(s)
	}
	return tally.Totals(vehicle, start, end, lim)
}

package truckload

import (
	"math/big"
	"time"

	"github.com/google/uuid"
)

// Tally adds up steps given in time order into the sums and the peaks,
// holding only running totals, so a caller can feed it any number of steps
// read one at a time (the write warnings stream them from the database).
// The load between two instants is the load after every step at the
// earlier one, so steps at one instant may come in any order.
type Tally struct {
	at      time.Time
	started bool
	// Sums over the lines, the loads now, and the peaks so far.
	payload, cargo               big.Rat
	weight, volume               big.Rat
	peakWeight, peakVolume       big.Rat
	unknownWeight, unknownVolume int
}

// Add takes the next step; s.At is never before the previous step's.
func (t *Tally) Add(s Step) {
	if t.started && s.At.After(t.at) {
		t.settle()
	}
	t.at, t.started = s.At, true
	net := s.On - s.Off
	if s.WeightLbs == nil {
		t.unknownWeight += s.Reservations
	} else {
		w := decimal(*s.WeightLbs)
		t.payload.Add(&t.payload, times(s.On, w))
		t.weight.Add(&t.weight, times(net, w))
	}
	if s.LengthIn == nil || s.WidthIn == nil || s.HeightIn == nil {
		t.unknownVolume += s.Reservations
	} else {
		v := decimal(*s.LengthIn)
		v.Mul(v, decimal(*s.WidthIn))
		v.Mul(v, decimal(*s.HeightIn))
		t.cargo.Add(&t.cargo, times(s.On, v))
		t.volume.Add(&t.volume, times(net, v))
	}
}

// settle records the load after every step at t.at, which holds until the
// next step's instant, in the peaks.
func (t *Tally) settle() {
	if t.weight.Cmp(&t.peakWeight) > 0 {
		t.peakWeight.Set(&t.weight)
	}
	if t.volume.Cmp(&t.peakVolume) > 0 {
		t.peakVolume.Set(&t.volume)
	}
}

// Totals are the figures of every step added, over the window [start, end),
// against the vehicle's limits. Sums and peaks are exact until hundredths
// rounds them, once, for the answer and the comparison (hundredths).
func (t *Tally) Totals(vehicle uuid.UUID, start, end time.Time, lim Limits) Totals {
	t.settle()
	out := Totals{VehicleID: vehicle, WindowStart: start, WindowEnd: end, MaxPayloadLbs: lim.MaxPayloadLbs,
		UnknownWeightCount: t.unknownWeight, UnknownVolumeCount: t.unknownVolume}
	if lim.LengthIn != nil && lim.WidthIn != nil && lim.HeightIn != nil {
		v := big.NewInt(int64(*lim.LengthIn))
		v.Mul(v, big.NewInt(int64(*lim.WidthIn)))
		out.InteriorVolumeCuin = v.Mul(v, big.NewInt(int64(*lim.HeightIn)))
	}
	var maxPayload *big.Int
	if lim.MaxPayloadLbs != nil {
		maxPayload = big.NewInt(int64(*lim.MaxPayloadLbs))
	}
	out.PayloadLbs, _ = hundredths(&t.payload, nil)
	out.CargoVolumeCuin, _ = hundredths(&t.cargo, nil)
	out.PeakPayloadLbs, out.OverPayload = hundredths(&t.peakWeight, maxPayload)
	out.PeakCargoVolumeCuin, out.OverVolume = hundredths(&t.peakVolume, out.InteriorVolumeCuin)
	return out
}

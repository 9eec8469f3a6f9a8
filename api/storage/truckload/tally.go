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
//
// Totals are exact integers of a decimal unit (tally), each set of figures
// read as decimals once (figuresOf): adding big.Rat fractions, each reduced
// by a GCD, and parsing each step's figures again cost a write on a truck
// of 100,000 reservations over a second.
type Tally struct {
	at                           time.Time
	started                      bool
	weight, volume               tally
	unknownWeight, unknownVolume int
	figures                      map[figuresKey]*known
	scratch                      big.Int
}

// tally is one quantity's running totals, in units of 10^-scale: the sum
// of what got on, the load now and its peak so far.
type tally struct {
	scale          int
	sum, now, peak big.Int
	unit, onUnits  big.Int // scratch
}

// figuresKey is a set of figures by value; has tells which are known.
type figuresKey struct {
	weight, length, width, height float64
	has                           [2]bool // weight, all three dimensions
}

// known is a set of figures read as decimals: a unit's weight and volume.
type known struct {
	weight, volume figure
	has            [2]bool
}

// Add takes the next step; s.At is never before the previous step's.
func (t *Tally) Add(s Step) {
	if t.started && s.At.After(t.at) {
		t.weight.settle()
		t.volume.settle()
	}
	t.at, t.started = s.At, true
	f := t.figuresOf(s.Figures)
	if f.has[0] {
		t.weight.add(s.On, s.Off, &f.weight, &t.scratch)
	} else {
		t.unknownWeight += s.Reservations
	}
	if f.has[1] {
		t.volume.add(s.On, s.Off, &f.volume, &t.scratch)
	} else {
		t.unknownVolume += s.Reservations
	}
}

// figuresOf reads fs as decimals, once for each set of figures.
func (t *Tally) figuresOf(fs Figures) *known {
	var k figuresKey
	if fs.WeightLbs != nil {
		k.weight, k.has[0] = *fs.WeightLbs, true
	}
	if fs.LengthIn != nil && fs.WidthIn != nil && fs.HeightIn != nil {
		k.length, k.width, k.height, k.has[1] = *fs.LengthIn, *fs.WidthIn, *fs.HeightIn, true
	}
	if f, ok := t.figures[k]; ok {
		return f
	}
	f := &known{has: k.has}
	if k.has[0] {
		f.weight = decimal(k.weight)
	}
	if k.has[1] {
		f.volume = product(decimal(k.length), decimal(k.width), decimal(k.height))
	}
	if t.figures == nil {
		t.figures = map[figuresKey]*known{}
	}
	t.figures[k] = f
	return f
}

// add puts on units of f and takes off units off, scaling the totals to
// f's decimals first when it has more.
func (t *tally) add(on, off int, f *figure, scratch *big.Int) {
	if f.exp > t.scale {
		m := pow10(f.exp - t.scale)
		t.sum.Mul(&t.sum, m)
		t.now.Mul(&t.now, m)
		t.peak.Mul(&t.peak, m)
		t.scale = f.exp
	}
	unit := &f.n
	if f.exp < t.scale {
		unit = t.unit.Mul(&f.n, pow10(t.scale-f.exp))
	}
	if on != 0 {
		t.onUnits.Mul(scratch.SetInt64(int64(on)), unit)
		t.sum.Add(&t.sum, &t.onUnits)
		t.now.Add(&t.now, &t.onUnits)
	}
	if off != 0 {
		t.now.Sub(&t.now, t.onUnits.Mul(scratch.SetInt64(int64(off)), unit))
	}
}

// settle records the load after every step at the current instant, which
// holds until the next step's instant, in the peak.
func (t *tally) settle() {
	if t.now.Cmp(&t.peak) > 0 {
		t.peak.Set(&t.now)
	}
}

// rat is x, an integer of t's unit, as an exact fraction.
func (t *tally) rat(x *big.Int) *big.Rat { return new(big.Rat).SetFrac(x, pow10(t.scale)) }

// Totals are the figures of every step added, over the window [start, end),
// against the vehicle's limits. Sums and peaks are exact until hundredths
// rounds them, once, for the answer and the comparison (hundredths).
func (t *Tally) Totals(vehicle uuid.UUID, start, end time.Time, lim Limits) Totals {
	t.weight.settle()
	t.volume.settle()
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
	out.PayloadLbs, _ = hundredths(t.weight.rat(&t.weight.sum), nil)
	out.CargoVolumeCuin, _ = hundredths(t.volume.rat(&t.volume.sum), nil)
	out.PeakPayloadLbs, out.OverPayload = hundredths(t.weight.rat(&t.weight.peak), maxPayload)
	out.PeakCargoVolumeCuin, out.OverVolume = hundredths(t.volume.rat(&t.volume.peak), out.InteriorVolumeCuin)
	return out
}

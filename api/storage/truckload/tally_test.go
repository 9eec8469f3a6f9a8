package truckload

import (
	"math"
	"math/big"
	"math/rand"
	"strconv"
	"testing"
	"time"
)

// ratOf is a figure as an exact fraction, the reference's way: its
// shortest decimal.
func ratOf(x float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	return r
}

// TestDecimal: a figure is its shortest decimal exactly, for every kind of
// float64 (zero, negative, tiny, huge, many digits).
func TestDecimal(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1.005, -3e-05, 1e-9, 1e15, 1.5e22, 123456789.123456789,
		5e-324, math.MaxFloat64, 2.675, 0.1, -1.5} {
		f := decimal(x)
		if got := new(big.Rat).SetFrac(&f.n, pow10(f.exp)); got.Cmp(ratOf(x)) != 0 {
			t.Errorf("decimal(%v) = %v, want %v", x, got, ratOf(x))
		}
	}
}

// TestTallyMatchesExactFractions: on random steps of random figures (few
// and many decimals, tiny and huge, the unit's scale growing midway,
// negative loads), the tally's sums, loads and peaks equal those of exact
// fractions added step by step, as the tally did before its integer sums
// (a reviewer's property test: 3,000 sequences).
func TestTallyMatchesExactFractions(t *testing.T) {
	r := rand.New(rand.NewSource(48))
	figure := func() *float64 {
		x := []float64{float64(r.Intn(100000)) / 1000, float64(r.Intn(1000)) + 0.005 + float64(r.Intn(10))/100,
			r.Float64() * math.Pow(10, float64(r.Intn(25)-12)), 1e-9, 1e15, float64(r.Intn(50)) / 8,
			-float64(r.Intn(1000)) / 100, math.SmallestNonzeroFloat64 * float64(r.Intn(5)+1)}[r.Intn(8)]
		if r.Intn(8) == 0 {
			return nil
		}
		return &x
	}
	base := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for trial := range 3000 {
		sets := make([]Figures, 1+r.Intn(6))
		for i := range sets {
			sets[i] = Figures{WeightLbs: figure(), LengthIn: figure(), WidthIn: figure(), HeightIn: figure()}
		}
		var got Tally
		var sum, now, peak [2]big.Rat // weight, volume
		at := base
		for i := range 1 + r.Intn(40) {
			if i > 0 && r.Intn(3) == 0 {
				at = at.Add(time.Duration(1+r.Intn(120)) * time.Minute)
				for d := range 2 {
					if now[d].Cmp(&peak[d]) > 0 {
						peak[d].Set(&now[d])
					}
				}
			}
			s := Step{At: at, On: r.Intn(1000) * r.Intn(2), Off: r.Intn(1000) * r.Intn(2), Reservations: 1, Figures: sets[r.Intn(len(sets))]}
			got.Add(s)
			for d, x := range [2]*big.Rat{weightOf(s.Figures), volumeOf(s.Figures)} {
				if x != nil {
					sum[d].Add(&sum[d], new(big.Rat).Mul(big.NewRat(int64(s.On), 1), x))
					now[d].Add(&now[d], new(big.Rat).Mul(big.NewRat(int64(s.On-s.Off), 1), x))
				}
			}
		}
		got.weight.settle()
		got.volume.settle()
		for d, tl := range [2]*tally{&got.weight, &got.volume} {
			if now[d].Cmp(&peak[d]) > 0 {
				peak[d].Set(&now[d])
			}
			if tl.rat(&tl.sum).Cmp(&sum[d]) != 0 || tl.rat(&tl.now).Cmp(&now[d]) != 0 || tl.rat(&tl.peak).Cmp(&peak[d]) != 0 {
				t.Fatalf("trial %d, %s: sum %v now %v peak %v, want %v %v %v (figures %v)", trial, []string{"weight", "volume"}[d],
					tl.rat(&tl.sum), tl.rat(&tl.now), tl.rat(&tl.peak), &sum[d], &now[d], &peak[d], sets)
			}
		}
	}
}

// weightOf and volumeOf are a unit's figures as exact fractions, nil when
// unknown.
func weightOf(f Figures) *big.Rat {
	if f.WeightLbs == nil {
		return nil
	}
	return ratOf(*f.WeightLbs)
}

func volumeOf(f Figures) *big.Rat {
	if f.LengthIn == nil || f.WidthIn == nil || f.HeightIn == nil {
		return nil
	}
	v := ratOf(*f.LengthIn)
	return v.Mul(v, ratOf(*f.WidthIn)).Mul(v, ratOf(*f.HeightIn))
}

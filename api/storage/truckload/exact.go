package truckload

import (
	"math/big"
	"strconv"
	"strings"
)

// figure is an exact decimal: n × 10^-exp, exp ≥ 0.
type figure struct {
	n   big.Int
	exp int
}

// decimal is the figure x as the decimal that was entered: the shortest
// decimal that reads back as x (1.005, not the float64's exact binary value
// 1.00499999999999989…), so a sum of 1.005 lb rounds to 1.01 as decimal
// arithmetic does. Figures are finite (JSON has no NaN or ±Inf); strconv
// writes a finite float64 as digits and a decimal exponent.
func decimal(x float64) figure {
	s := strconv.FormatFloat(x, 'e', -1, 64) // "1.005e+00", "-3e-05"
	mant, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	whole, frac, _ := strings.Cut(mant, ".")
	var f figure
	f.n.SetString(whole+frac, 10)
	f.exp = len(frac) - exp
	if f.exp < 0 {
		f.n.Mul(&f.n, pow10(-f.exp))
		f.exp = 0
	}
	return f
}

// product is a × b × … exactly.
func product(fs ...figure) figure {
	var p figure
	p.n.SetInt64(1)
	for i := range fs {
		p.n.Mul(&p.n, &fs[i].n)
		p.exp += fs[i].exp
	}
	return p
}

// pow10s caches the powers of ten a tally scales by.
var pow10s = func() []*big.Int {
	out := make([]*big.Int, 64)
	for i := range out {
		out[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
	return out
}()

// pow10 is 10^k; callers must not change it.
func pow10(k int) *big.Int {
	if k < len(pow10s) {
		return pow10s[k]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
}

// hundredths is the one rounding rule of the load: an exact figure is
// rounded to hundredths, half away from zero (as math.Round), reported as
// the nearest float64, and compared exactly with limit: it is over when the
// rounded figure exceeds it (never when limit is nil, unknown). So the noise
// of binary floating point never decides, however large the figure.
func hundredths(x *big.Rat, limit *big.Int) (float64, bool) {
	// x × 100 = q + r/d with q, r truncated toward zero; a remainder of
	// half or more rounds q one further from zero.
	d := x.Denom()
	q, r := new(big.Int).QuoRem(new(big.Int).Mul(x.Num(), big.NewInt(100)), d, new(big.Int))
	if r.Lsh(r.Abs(r), 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(int64(x.Sign())))
	}
	rounded := new(big.Rat).SetFrac(q, big.NewInt(100))
	f, _ := rounded.Float64()
	return f, limit != nil && rounded.Cmp(new(big.Rat).SetInt(limit)) > 0
}

package truckload

import (
	"math/big"
	"strconv"
	"strings"
	"sync"
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

// pow10s caches the powers of ten a tally scales by: one set of figures
// with a tiny figure (5e-324 lb is a valid weight) scales by 10^324 at every
// step of it, and computing that each time cost a busy truck 16 times more.
var pow10s sync.Map // int -> *big.Int

// pow10 is 10^k; callers must not change it.
func pow10(k int) *big.Int {
	if p, ok := pow10s.Load(k); ok {
		return p.(*big.Int)
	}
	p, _ := pow10s.LoadOrStore(k, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	return p.(*big.Int)
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

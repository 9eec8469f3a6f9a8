package truckload

import (
	"math/big"
	"strconv"
)

// decimal is the figure x as the decimal that was entered: the shortest
// decimal that reads back as x (1.005, not the float64's exact binary value
// 1.00499999999999989…), so a sum of 1.005 lb rounds to 1.01 as decimal
// arithmetic does. Figures are finite (JSON has no NaN or ±Inf), and
// strconv writes a finite float64 in a form big.Rat reads.
func decimal(x float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	return r
}

// times is q × x, exactly.
func times(q int, x *big.Rat) *big.Rat {
	return new(big.Rat).Mul(new(big.Rat).SetInt64(int64(q)), x)
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

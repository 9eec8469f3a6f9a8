package money

import (
	"encoding/binary"
	"errors"
	"math"
)

// PostgreSQL's binary numeric: four uint16 (digit count, weight of the
// first digit as a power of 10000, sign, display scale), then base-10000
// digits, most significant first.
const (
	numericPositive = 0x0000
	numericNegative = 0x4000
)

var (
	errNumericForm  = errors.New("money: malformed binary numeric")
	errNumericValue = errors.New("money: numeric is NaN or infinite")
	errNumericRange = errors.New("money: numeric out of range")
)

// DecodeNumeric reads a numeric in PostgreSQL's binary format as Scan reads
// its text: exact to the cent, rounded half away from zero past it, with no
// big.Int or text in between. NULL is not its business (src is a value).
func DecodeNumeric(src []byte) (Amount, error) {
	if len(src) < 8 {
		return 0, errNumericForm
	}
	ndigits := int(binary.BigEndian.Uint16(src))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	if sign != numericPositive && sign != numericNegative {
		return 0, errNumericValue
	}
	if len(src) != 8+2*ndigits {
		return 0, errNumericForm
	}
	var cents int64
	for i := range ndigits {
		d := int64(binary.BigEndian.Uint16(src[8+2*i:]))
		switch p := weight - i; {
		case p >= 0: // d × 10000^p units: d × 100 × 10000^p cents
			v, ok := scale(d*100, p)
			if !ok || cents > math.MaxInt64-v {
				return 0, errNumericRange
			}
			cents += v
		case p == -1: // four decimals: two of cents, then the rounding digit
			v := d / 100
			if d%100 >= 50 {
				v++
			}
			if cents > math.MaxInt64-v {
				return 0, errNumericRange
			}
			cents += v
			// later digits (p < -1) lie below the rounding digit
		}
	}
	if sign == numericNegative {
		cents = -cents
	}
	return Amount(cents), nil
}

// scale returns v × 10000^p, or false when it overflows an int64.
func scale(v int64, p int) (int64, bool) {
	for range p {
		if v > math.MaxInt64/10000 {
			return 0, false
		}
		v *= 10000
	}
	return v, true
}

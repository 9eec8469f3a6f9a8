package jsonplan

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// appendFloat appends f as encoding/json writes a float64 (ES6 number
// formatting), with its error for NaN and infinities.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	abs := math.Abs(f)
	if b, ok := appendShortDecimal(b, f, abs); ok {
		return b, nil
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendShortDecimal appends f when it is the float nearest a decimal of
// at most two places, which the measurements and rates of equipment are,
// and reports whether it did: strconv's shortest formatting then writes
// exactly that decimal (no shorter one parses back to f, and below 1e12
// the floats are so dense that no other of as many digits does either),
// and integer arithmetic writes it for a fraction of strconv's cost.
// Zero is left to strconv (it writes -0 as "-0").
func appendShortDecimal(b []byte, f, abs float64) ([]byte, bool) {
	if abs >= 1e12 || abs < 0.01 {
		return b, false
	}
	for _, scale := range [...]float64{1, 10, 100} {
		n := math.Round(abs * scale)
		if n/scale != abs {
			continue
		}
		if f < 0 {
			b = append(b, '-')
		}
		u := uint64(n)
		switch scale {
		case 1:
			return strconv.AppendUint(b, u, 10), true
		case 10:
			b = strconv.AppendUint(b, u/10, 10)
			return append(b, '.', byte('0'+u%10)), true
		default:
			// n is not a multiple of 10: it would have matched scale 10
			b = strconv.AppendUint(b, u/100, 10)
			return append(b, '.', byte('0'+u/10%10), byte('0'+u%10)), true
		}
	}
	return b, false
}

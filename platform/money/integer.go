package money

import "errors"

// maxIntegerDigits is the most digits Integer reads: any 18-digit number
// fits an int64.
const maxIntegerDigits = 18

// Integer's refusals.
var (
	// ErrNotInteger: the text is not a number, or has a fractional part.
	ErrNotInteger = errors.New("must be an integer")
	// ErrIntegerRange: a whole number of 10^18 or more in magnitude.
	ErrIntegerRange = errors.New("integer out of range")
)

// Integer reads a JSON number text as a whole number, exactly, with the
// reader amounts use (readNumber): 5, 5.0, 5e0, 50e-1 and 0.5e1 are all 5,
// as JSON Schema counts any number with a zero fraction an integer. A value
// with a fractional part (5.0000000000000001 too, which a float64 would
// round to 5) and any text that is not a number are ErrNotInteger; a whole
// number of 10^18 or more in magnitude (1e400 too) is ErrIntegerRange.
func Integer[T string | []byte](s T) (int64, error) {
	n, ok := readNumber(s)
	switch {
	case !ok:
		return 0, ErrNotInteger
	case n.zero:
		return 0, nil
	case n.exp < 0: // the last non-zero digit lies below the units
		return 0, ErrNotInteger
	}
	digits := int64(n.count) + n.exp
	if digits > maxIntegerDigits {
		return 0, ErrIntegerRange
	}
	v, _ := leading(s, n, digits)
	if n.negative {
		v = -v
	}
	return v, nil
}

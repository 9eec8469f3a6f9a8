package money

// maxIntegerDigits is the most digits Integer reads: any 18-digit number
// fits an int64.
const maxIntegerDigits = 18

// Integer reads a JSON number text as a whole number, exactly, with the
// reader amounts use (readNumber): 5, 5.0, 5e0, 50e-1 and 0.5e1 are all 5,
// as JSON Schema counts any number with a zero fraction an integer. ok is
// false for a value with a fractional part (5.0000000000000001 too, which
// a float64 would round to 5), for a magnitude of 10^18 or more, and for
// any text that is not a number.
func Integer[T string | []byte](s T) (v int64, ok bool) {
	n, ok := readNumber(s)
	switch {
	case !ok:
		return 0, false
	case n.zero:
		return 0, true
	case n.exp < 0: // the last non-zero digit lies below the units
		return 0, false
	}
	digits := int64(n.count) + n.exp
	if digits > maxIntegerDigits {
		return 0, false
	}
	v, _ = leading(s, n, digits)
	if n.negative {
		v = -v
	}
	return v, true
}

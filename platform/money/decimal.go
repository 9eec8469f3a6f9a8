package money

// Plain decimal text ("123", "12.5", "0.10", "-3.25") is by far the common
// input, both from JSON bodies and from PostgreSQL numeric columns. It is read
// here directly as fixed-point cents; anything else (exponents, more than 13
// integer digits) is left to the exact reader of number.go by returning ok =
// false.

// maxIntDigits keeps the integer part small enough that cents fit an int64
// with room to spare (Max has 10 integer digits).
const maxIntDigits = 13

// decimal is a plain decimal text split into cents and what lies beyond them.
type decimal struct {
	cents    int64 // the value truncated to cents, without sign
	negative bool
	// beyond is the first digit past the cents (for rounding) and extra
	// reports any non-zero digit past the cents.
	beyond byte
	extra  bool
}

// parseDecimal reads `-?digits(.digits)?`. ok is false for any other form.
func parseDecimal[T string | []byte](s T) (d decimal, ok bool) {
	if len(s) > 0 && s[0] == '-' {
		d.negative, s = true, s[1:]
	}
	i, intDigits := 0, 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		d.cents = d.cents*10 + int64(s[i]-'0')
		intDigits++
	}
	if intDigits == 0 || intDigits > maxIntDigits {
		return d, false
	}
	d.cents *= 100
	if i == len(s) {
		return d, true
	}
	if s[i] != '.' || i+1 == len(s) {
		return d, false
	}
	frac := s[i+1:]
	for j := 0; j < len(frac); j++ {
		c := frac[j]
		if !isDigit(c) {
			return d, false
		}
		switch {
		case j == 0:
			d.cents += int64(c-'0') * 10
		case j == 1:
			d.cents += int64(c - '0')
		case j == 2:
			d.beyond = c - '0'
			d.extra = d.extra || c != '0'
		default:
			d.extra = d.extra || c != '0'
		}
	}
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

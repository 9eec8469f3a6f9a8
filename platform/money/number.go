package money

// The forms parseDecimal leaves out (an exponent, a long integer part, a
// leading '+' or '.') are read here, still exactly and still without big
// arithmetic: a text is split into its significant digits and the power of
// ten of the last one, and that power alone decides whether the value can be
// an amount. The cost is one pass over the text whatever its exponent
// (1e1000000 is refused as soon as it is read, where big.Rat would first
// build 10^1000000), and nothing is allocated.

// expLimit is where the exponent stops growing as it is read. Past it every
// non-zero value is far outside any amount (or far below a cent), so the
// exact figure no longer matters, and it cannot overflow an int64 however
// long the text.
const expLimit = 1 << 40

// maxCentsDigits is the number of digits of Max in cents (999999999999).
const maxCentsDigits = 12

// maxScanDigits is the most digits of cents Scan reads: any 18-digit number
// (plus one when it rounds up) fits an int64.
const maxScanDigits = 18

// number is a decimal text `[+-]?digits[.digits][(e|E)[+-]?digits]` (at
// least one mantissa digit, either side of the point) read exactly: its value
// is ±(significant digits) × 10^exp.
type number struct {
	negative bool
	// zero reports a mantissa of zeros only; the other fields are then unset.
	zero bool
	// first and last index the first and last non-zero digit in the text (a
	// '.' may lie between them); count is the number of digits from first to
	// last.
	first, last, count int
	// exp is the power of ten of the digit at last.
	exp int64
}

// readNumber reads s as a number. ok is false for any other text, including
// Go's other number forms (0x prefixes, '_' separators, fractions a/b, 'p'
// exponents), which big.Rat would accept but no JSON number has.
func readNumber[T string | []byte](s T) (n number, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		n.negative = s[i] == '-'
		i++
	}
	point, digits, firstDigit := -1, 0, -1
	n.first = -1
mantissa:
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			if firstDigit < 0 {
				firstDigit = i
			}
			digits++
			if c != '0' {
				if n.first < 0 {
					n.first = i
				}
				n.last = i
			}
		case c == '.' && point < 0:
			point = i
		default:
			break mantissa
		}
	}
	if digits == 0 {
		return number{}, false
	}
	end := i // the mantissa is s[:end]
	var exp int64
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return number{}, false
		}
		i++
		negExp := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			negExp = s[i] == '-'
			i++
		}
		if i == len(s) {
			return number{}, false
		}
		for ; i < len(s); i++ {
			if !isDigit(s[i]) {
				return number{}, false
			}
			if exp < expLimit {
				exp = exp*10 + int64(s[i]-'0')
			}
		}
		if negExp {
			exp = -exp
		}
	}
	if n.first < 0 {
		return number{negative: n.negative, zero: true}, true
	}
	n.count = n.last - n.first + 1
	if point > n.first && point < n.last {
		n.count--
	}
	// The power of ten of the digit at last, before the exponent: the digits
	// after it up to the point (or to the end of the mantissa), or minus the
	// digits from the point to it.
	switch {
	case point < 0:
		n.exp = int64(end - 1 - n.last)
	case n.last < point:
		n.exp = int64(point - 1 - n.last)
	default:
		n.exp = -int64(n.last - point)
	}
	n.exp += exp
	return n, true
}

// centsDigits is the number of digits of the value in cents, truncated:
// count + exp + 2 (zero or less when the value is below a cent).
func (n number) centsDigits() int64 { return int64(n.count) + n.exp + 2 }

// leading returns the first k significant digits of s as an integer,
// followed by zeros when k exceeds count, and the digit after them (0 when
// there is none). k must be at most 18.
func leading[T string | []byte](s T, n number, k int64) (v int64, next byte) {
	if k < 0 {
		return 0, 0
	}
	taken := int64(0)
	for j := n.first; j <= n.last; j++ {
		c := s[j]
		if c == '.' {
			continue
		}
		if taken == k {
			return v, c - '0'
		}
		v = v*10 + int64(c-'0')
		taken++
	}
	for ; taken < k; taken++ {
		v *= 10
	}
	return v, 0
}

// parseNumber is Parse for the forms parseDecimal leaves out: the same
// answers big.Rat's exact value gives (more than two decimals is
// ErrPrecision, before anything else; then negative or above Max is
// ErrRange), read in one pass.
func parseNumber(s string) (Amount, error) {
	n, ok := readNumber(s)
	switch {
	case !ok:
		return 0, ErrRange
	case n.zero:
		return 0, nil
	case n.exp < -2: // the last non-zero digit lies below the cents
		return 0, ErrPrecision
	case n.negative, n.centsDigits() > maxCentsDigits:
		return 0, ErrRange
	}
	v, _ := leading(s, n, n.centsDigits())
	if v > int64(Max) {
		return 0, ErrRange
	}
	return Amount(v), nil
}

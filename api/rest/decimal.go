package rest

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
)

// decimal is a number as its decimal digits: sign × 0.digits × 10^exp, with
// no leading or trailing zero in digits ("" is zero).
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// parseDecimal reads a JSON number literal exactly. ok is false for text
// that is not one, or an exponent too large to hold (the caller has read
// the literal as a float64 already; only a zero mantissa can carry one).
func parseDecimal(lit string) (d decimal, ok bool) {
	lit = strings.TrimSpace(lit)
	if strings.HasPrefix(lit, "-") {
		d.neg, lit = true, lit[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(lit), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	for _, c := range digits {
		if c < '0' || c > '9' {
			return decimal{}, false
		}
	}
	trimmed := strings.TrimLeft(digits, "0")
	point := len(intPart) - (len(digits) - len(trimmed))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{}, true // zero, whatever its exponent
	}
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(expText, "+"))
		if err != nil || e > 1<<30 || e < -(1<<30) {
			return decimal{}, false
		}
		exp = e
	}
	d.exp = point + exp
	return d, true
}

// cmp compares a and b as numbers: -1, 0 or +1.
func (a decimal) cmp(b decimal) int {
	if a.digits == "" || b.digits == "" || a.neg != b.neg {
		return cmp.Compare(a.sign(), b.sign())
	}
	m := a.cmpMagnitude(b)
	if a.neg {
		return -m
	}
	return m
}

func (a decimal) sign() int {
	switch {
	case a.digits == "":
		return 0
	case a.neg:
		return -1
	}
	return 1
}

// cmpMagnitude compares |a| and |b|, both non-zero.
func (a decimal) cmpMagnitude(b decimal) int {
	if a.exp != b.exp {
		if a.exp > b.exp {
			return 1
		}
		return -1
	}
	// Same exponent: the digits compare as text; without trailing zeros,
	// the longer of two that share a prefix is the larger.
	return strings.Compare(a.digits, b.digits)
}

// longLiteral is the length past which a number literal is read through
// its exact digits (readNumber) rather than by encoding/json alone.
const longLiteral = 700

// parseFloatDigits is how many significant digits readNumber hands to
// strconv.ParseFloat: past 800 (strconv's own buffer), Go 1.26 misreads a
// literal ("2" followed by 810 zeros and "e-801" reads as 0.02, not 2e9);
// past 17 digits they only decide the last bit of a float64.
const parseFloatDigits = 780

// readNumber reads a JSON number literal as a float64. A literal longer
// than longLiteral is read from its decimal digits, normalised to at most
// parseFloatDigits of them, so that a valid literal of a thousand digits
// gets its own value; a magnitude past float64 reads as ±Inf, one below
// its smallest as 0. Shorter literals (every real one) and text that is
// no number go to encoding/json as they are.
func readNumber(raw []byte) (float64, error) {
	if len(raw) > longLiteral {
		if d, ok := parseDecimal(string(raw)); ok {
			return d.float(), nil
		}
	}
	var v float64
	err := json.Unmarshal(raw, &v)
	return v, err
}

// float is d's nearest float64 (±Inf past its range, 0 below it).
func (d decimal) float() float64 {
	if d.digits == "" {
		return 0
	}
	digits := d.digits[:min(len(d.digits), parseFloatDigits)]
	v, _ := strconv.ParseFloat("0."+digits+"e"+strconv.Itoa(d.exp), 64) // ErrRange: ±Inf or 0, as wanted
	if d.neg {
		return -v
	}
	return v
}

// exactCmp compares the JSON number literal lit with the float64 bound on
// lit's decimal digits: a literal that float64 rounds onto the bound
// (1000000000.0000000001 reads as 1e9) is still above it. ok is false
// when lit cannot be read that way.
func exactCmp(lit string, bound float64) (int, bool) {
	d, ok := parseDecimal(lit)
	if !ok {
		return 0, false
	}
	b, _ := parseDecimal(strconv.FormatFloat(bound, 'g', -1, 64))
	return d.cmp(b), true
}

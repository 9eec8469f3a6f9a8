// Package money is an exact amount of currency in cents. It scans from and
// writes to PostgreSQL numeric, and reads and writes JSON numbers with at
// most two decimals, so no amount ever passes through a float.
package money

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Amount is a number of cents.
type Amount int64

// Max is the largest amount accepted from a client (numeric(12,2)).
const Max Amount = 999_999_999_999

// ErrPrecision reports more than two decimals.
var ErrPrecision = errors.New("must have at most 2 decimal places")

// ErrRange reports an amount outside 0..Max or not a number.
var ErrRange = errors.New("must be a number from 0 to " + Max.String())

// Parse reads a decimal text (a JSON number, or any text of the form
// `[+-]?digits[.digits][(e|E)[+-]?digits]`) exactly. Its cost is one pass
// over the text, whatever the exponent: no amount passes through big
// arithmetic (see number.go).
func Parse(s string) (Amount, error) {
	if d, ok := parseDecimal(s); ok {
		switch {
		case d.extra:
			return 0, ErrPrecision
		case d.negative && d.cents != 0, d.cents > int64(Max):
			return 0, ErrRange
		}
		return Amount(d.cents), nil
	}
	return parseNumber(s)
}

// Mul returns a × qty.
func (a Amount) Mul(qty int) Amount { return a * Amount(qty) }

// String renders the amount with two decimals.
func (a Amount) String() string { return string(a.AppendText(make([]byte, 0, 24))) }

// AppendText appends the amount with two decimals to b.
func (a Amount) AppendText(b []byte) []byte {
	v := uint64(a)
	if a < 0 {
		b, v = append(b, '-'), -v
	}
	b = strconv.AppendUint(b, v/100, 10)
	return append(b, '.', byte('0'+v%100/10), byte('0'+v%10))
}

// MarshalJSON writes a JSON number with two decimals.
func (a Amount) MarshalJSON() ([]byte, error) { return a.AppendText(make([]byte, 0, 24)), nil }

// UnmarshalJSON reads a JSON number exactly.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" || s[0] == '"' {
		return ErrRange
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Value writes numeric text.
func (a Amount) Value() (driver.Value, error) { return a.String(), nil }

// Scan reads numeric text (or an integer) from the database.
func (a *Amount) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*a = 0
		return nil
	case int64:
		*a = Amount(v * 100)
		return nil
	case []byte:
		return scanText(a, v)
	case string:
		return scanText(a, v)
	case float64:
		return scanText(a, strconv.FormatFloat(v, 'f', -1, 64))
	}
	return fmt.Errorf("money: cannot scan %T", src)
}

// scanText reads numeric text, rounding half away from zero past the cents.
// An exponent form is read as Parse reads it, in one pass; a value whose
// cents do not fit an int64 is an error rather than a wrapped amount.
func scanText[T string | []byte](a *Amount, s T) error {
	if d, ok := parseDecimal(s); ok {
		v := d.cents
		if d.beyond >= 5 {
			v++
		}
		if d.negative {
			v = -v
		}
		*a = Amount(v)
		return nil
	}
	n, ok := readNumber(s)
	switch {
	case !ok:
		return fmt.Errorf("money: cannot scan %q", s)
	case n.zero:
		*a = 0
		return nil
	case n.centsDigits() > maxScanDigits:
		return fmt.Errorf("money: %q is out of range", s)
	}
	v, next := leading(s, n, n.centsDigits())
	if next >= 5 {
		v++
	}
	if n.negative {
		v = -v
	}
	*a = Amount(v)
	return nil
}

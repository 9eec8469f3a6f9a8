package money

import (
	"strconv"
	"testing"
)

// TestLimitsAgreeWithMax: the digit bound the parser applies before its
// range check, and the range error's text, both follow Max.
func TestLimitsAgreeWithMax(t *testing.T) {
	if n := len(strconv.FormatInt(int64(Max), 10)); n != maxCentsDigits {
		t.Errorf("Max has %d digits of cents, maxCentsDigits says %d", n, maxCentsDigits)
	}
	if want := "must be a number from 0 to 9999999999.99"; ErrRange.Error() != want {
		t.Errorf("ErrRange %q, want %q", ErrRange, want)
	}
}

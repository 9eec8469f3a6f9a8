package storage

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/errs"
)

func TestParseDateYearRange(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"0000-01-01", false}, // PostgreSQL has no year 0
		{"0001-01-01", false},
		{"1899-12-31", false},
		{"1900-01-01", true},
		{"2026-05-01", true},
		{"9999-12-31", true},
		{"10000-01-01", false},
		{"2026-02-30", false},
		{"2026-5-1", false},
		{"", false},
	} {
		d, err := ParseDate(tc.in)
		if (err == nil) != tc.ok || (tc.ok && d.String() != tc.in) {
			t.Errorf("ParseDate(%q) = %v, %v; want ok=%v", tc.in, d, err, tc.ok)
		}
		var u Date
		if err := json.Unmarshal([]byte(`"`+tc.in+`"`), &u); (err == nil) != tc.ok {
			t.Errorf("json.Unmarshal(%q) = %v; want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func TestInYearRange(t *testing.T) {
	for _, tc := range []struct {
		t  time.Time
		ok bool
	}{
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(1899, 12, 31, 23, 59, 59, 999999999, time.UTC), false},
		{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), true},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		// The year that counts is the one in UTC, where the value is stored.
		{time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("-12:00", -12*3600)), false},
		{time.Date(9999, 12, 31, 11, 0, 0, 0, time.FixedZone("-12:00", -12*3600)), true},
		{time.Date(1900, 1, 1, 0, 0, 0, 0, time.FixedZone("+01:00", 3600)), false},
		{time.Date(1900, 1, 1, 1, 0, 0, 0, time.FixedZone("+01:00", 3600)), true},
	} {
		if got := InYearRange(tc.t); got != tc.ok {
			t.Errorf("InYearRange(%v) = %v, want %v", tc.t, got, tc.ok)
		}
	}
}

// TestScanReadsAnyStoredYear: the year range bounds what clients send; a
// date already stored outside it is still read, never a scan error.
func TestScanReadsAnyStoredYear(t *testing.T) {
	for _, src := range []any{"1850-03-04", []byte("1850-03-04"), time.Date(1850, 3, 4, 0, 0, 0, 0, time.UTC)} {
		var d Date
		if err := d.Scan(src); err != nil || d.String() != "1850-03-04" {
			t.Errorf("Scan(%#v) = %v, %v", src, d, err)
		}
	}
}

func TestCheckWindow(t *testing.T) {
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		start, end time.Time
		ok         bool
	}{
		{"end after start", at, at.Add(time.Microsecond), true},
		{"end at start", at, at, false},
		{"end before start", at, at.Add(-time.Hour), false},
	}
	for _, c := range cases {
		err := CheckWindow(c.start, c.end)
		if WindowOK(c.start, c.end) != c.ok || (err == nil) != c.ok {
			t.Errorf("%s: WindowOK %v, CheckWindow %v; want ok %v", c.name, WindowOK(c.start, c.end), err, c.ok)
		}
		if err != nil && (errs.Issues(err)[0].Field != "end_date" || errs.Issues(err)[0].Issue != WindowIssue) {
			t.Errorf("%s: %v, want the end_date issue", c.name, err)
		}
	}
}

package rest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/storage"
)

func TestParseDateTime(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	tests := []struct {
		in   string
		want string // the instant in UTC; "" when refused
	}{
		{"2026-05-01T18:00:00Z", "2026-05-01T18:00:00Z"},
		{"2026-05-01T18:00:00+02:00", "2026-05-01T16:00:00Z"},
		{"2026-05-01T18:00:00-00:00", "2026-05-01T18:00:00Z"},
		{"2026-01-01T00:00:00+23:59", "2025-12-31T00:01:00Z"},
		{"2026-01-01T00:00:00-23:59", "2026-01-01T23:59:00Z"},
		{"2026-01-01T23:59:59.5Z", "2026-01-01T23:59:59.5Z"},
		{"2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"},
		{"2000-02-29T12:00:00Z", "2000-02-29T12:00:00Z"},
		// RFC 3339 takes T and Z in either case
		{"2026-01-01t00:00:00Z", "2026-01-01T00:00:00Z"},
		{"2026-01-01T00:00:00z", "2026-01-01T00:00:00Z"},
		{"2026-01-01t00:00:00.5z", "2026-01-01T00:00:00.5Z"},
		{"2026-01-01t00:00:00+01:00", "2025-12-31T23:00:00Z"},
		// microseconds kept, anything finer truncated (never rounded up)
		{"2028-01-01T00:00:00.123456Z", "2028-01-01T00:00:00.123456Z"},
		{"2028-01-01T00:00:00.1234569Z", "2028-01-01T00:00:00.123456Z"},
		{"2028-01-01T00:00:00.0000009Z", "2028-01-01T00:00:00Z"},
		{"2028-01-01T00:00:00.999999999999999Z", "2028-01-01T00:00:00.999999Z"},
		{"2028-01-01T00:00:00.000001+01:00", "2027-12-31T23:00:00.000001Z"},
		// the year range, in UTC
		{"1900-01-01T00:00:00Z", "1900-01-01T00:00:00Z"},
		{"9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"},
		{"1899-12-31T23:59:59Z", ""},
		{"1900-01-01T00:30:00+01:00", ""},
		{"9999-12-31T23:00:00-12:00", ""},
		{"1899-12-31T23:00:00-01:00", "1900-01-01T00:00:00Z"},
		{"0000-01-01T00:00:00Z", ""},
		{"10000-01-01T00:00:00Z", ""},
		// offsets RFC 3339 does not have, which time.Parse shifts
		{"2026-01-01T00:00:00+24:00", ""},
		{"2026-01-01T00:00:00+24:59", ""},
		{"2026-01-01T00:00:00-24:00", ""},
		{"2026-01-01T00:00:00+23:60", ""},
		{"2026-01-01T00:00:00-00:60", ""},
		{"2026-01-01T00:00:00+99:99", ""},
		// hours, minutes, seconds and days out of range
		{"2026-01-01T24:00:00Z", ""},
		{"2026-01-01T23:60:00Z", ""},
		{"2026-12-31T23:59:60Z", ""}, // a leap second: refused
		{"2026-02-29T00:00:00Z", ""},
		{"1900-02-29T00:00:00Z", ""},
		{"2026-04-31T00:00:00Z", ""},
		{"2026-00-01T00:00:00Z", ""},
		{"2026-13-01T00:00:00Z", ""},
		{"2026-01-00T00:00:00Z", ""},
		{"2026-01-32T00:00:00Z", ""},
		// forms time.Parse takes and RFC 3339 does not
		{"2026-01-01T1:00:00Z", ""},
		{"2026-01-01T00:00:00,5Z", ""},
		// and other malformed texts
		{"2026-01-01 00:00:00Z", ""},
		{"2026-01-01T00:00:00", ""},
		{"2026-01-01T00:00:00.Z", ""},
		{"2026-01-01T00:00:00.5", ""},
		{"2026-01-01T00:00:00+0100", ""},
		{"2026-01-01T00:00:00+01", ""},
		{"2026-01-01T00:00:00+1:00", ""},
		{"2026-01-01T00:00:00+01:0a", ""},
		{"2026-01-01T00:00:00 Z", ""},
		{"2026-01-01T00:00:00Z ", ""},
		{" 2026-01-01T00:00:00Z", ""},
		{"+2026-01-01T00:00:00Z", ""},
		{"2026-1-01T00:00:00Z", ""},
		{"2026-01-01T00:00:0Z", ""},
		{"2026-01-01", ""},
		{"2026-01-01T00:00:00UTC", ""},
		{"2026-01-01x00:00:00Z", ""},
		{"2026-01-01T00:00:00y", ""},
		{"2026-01-01T00:00:00.5.5Z", ""},
		{"2026-01-01T00:00:00-05:00Z", ""},
		{"2026-０1-01T00:00:00Z", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseDateTime(tt.in)
			if tt.want == "" {
				if ok {
					t.Fatalf("accepted as %v, want refused", got)
				}
				return
			}
			if want := utc(tt.want); !ok || !got.Equal(want) || got.Location() != time.UTC {
				t.Fatalf("= %v, %v; want %v in UTC", got, ok, want)
			}
		})
	}
}

// TestParseDateTimeAgreesWithTimeParse: on random date-times of the forms
// both take, ParseDateTime gives time.Parse's instant in UTC, truncated to
// the microsecond, and DateTimeUpIssue the same rounded up; they refuse
// only what RFC 3339 does not allow.
func TestParseDateTimeAgreesWithTimeParse(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", 1899+rnd.IntN(8102), 1+rnd.IntN(12), 1+rnd.IntN(31),
			rnd.IntN(25), rnd.IntN(61), rnd.IntN(61))
		fraction := ""
		if rnd.IntN(2) == 0 {
			fraction = fmt.Sprint(rnd.Uint64())[:1+rnd.IntN(12)]
			if rnd.IntN(4) == 0 { // zeros past the microsecond round nothing up
				fraction = (fraction + "000000")[:6] + "000"
			}
			s += "." + fraction
		}
		oh, om := 0, 0
		if rnd.IntN(3) == 0 {
			s += "Z"
		} else {
			oh, om = rnd.IntN(25), rnd.IntN(61)
			s += fmt.Sprintf("%c%02d:%02d", "+-"[rnd.IntN(2)], oh, om)
		}
		got, ok := ParseDateTime(s)
		want, err := time.Parse(time.RFC3339Nano, s) // takes offsets +24:00 and minute 60
		strictOK := err == nil && oh < 24 && om < 60 && want.UTC().Year() >= 1900 && want.UTC().Year() <= 9999
		if ok != strictOK {
			t.Fatalf("ParseDateTime(%q) ok = %v; time.Parse says %v, %v", s, ok, want, err)
		}
		if ok && !got.Equal(want.UTC().Truncate(time.Microsecond)) {
			t.Fatalf("ParseDateTime(%q) = %v; time.Parse says %v", s, got, want.UTC())
		}
		if !ok || len(fraction) > 9 { // time.Parse keeps nanoseconds only
			continue
		}
		up, issue := DateTimeUpIssue(s, "")
		ceil := want.UTC().Truncate(time.Microsecond)
		if up := ceil.Add(time.Microsecond); ceil.Before(want) && storage.InYearRange(up) {
			ceil = up
		}
		if issue != "" || !up.Equal(ceil) {
			t.Fatalf("DateTimeUpIssue(%q) = %v, %q; want %v (time.Parse says %v)", s, up, issue, ceil, want.UTC())
		}
	}
}

// TestDateTimeUpIssue: a bound is rounded up to the microsecond when the
// fraction has digits past it other than zeros, and only then.
func TestDateTimeUpIssue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2026-12-03T15:08:35.6046430001Z", "2026-12-03T15:08:35.604644Z"},
		{"2026-12-03T15:08:35.604643000000Z", "2026-12-03T15:08:35.604643Z"},
		{"2026-12-03T15:08:35.604643Z", "2026-12-03T15:08:35.604643Z"},
		{"2026-12-03T15:08:35.6Z", "2026-12-03T15:08:35.6Z"},
		{"2026-12-03T15:08:35Z", "2026-12-03T15:08:35Z"},
		{"2026-12-03T15:08:59.9999999+01:00", "2026-12-03T14:09:00Z"},
		{"2026-12-31T23:59:59.999999999999999999Z", "2027-01-01T00:00:00Z"},
		{"9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.999999Z"}, // not out of the years
		{"1899-12-31T23:59:59.9999999Z", "1900-01-01T00:00:00Z"},        // rounded into them
	} {
		got, issue := DateTimeUpIssue(tc.in, "")
		want, _ := time.Parse(time.RFC3339Nano, tc.want)
		if issue != "" || !got.Equal(want) {
			t.Errorf("DateTimeUpIssue(%q) = %v, %q; want %v", tc.in, got, issue, want)
		}
	}
}

func BenchmarkParseDateTime(b *testing.B) {
	for b.Loop() {
		_, _ = ParseDateTime("2026-05-01T18:00:00.123456+02:00")
	}
}

func TestQueryDateTimeIssue(t *testing.T) {
	const issue = "must be an RFC 3339 date-time"
	if got := QueryDateTimeIssue("2026-12-04T00:00:00 01:00", issue); got != issue+" (a + in an offset must be sent as %2B)" {
		t.Errorf("a space: %q", got)
	}
	if got := QueryDateTimeIssue("yesterday", issue); got != issue {
		t.Errorf("no space: %q", got)
	}
}

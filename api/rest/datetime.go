package rest

import (
	"strings"
	"time"

	"github.com/eventapi/eventapi/api/storage"
)

// ParseDateTime reads a date-time of the API, wherever a client sends one
// (a body field, a query parameter, a CLI flag): an RFC 3339 date-time
// (section 5.6), strictly,
//
//	YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)
//
// with a month of 01-12, a day that exists in that month, an hour of 00-23,
// a minute of 00-59, a second of 00-59 (a leap second, 60, is refused: Go's
// time has none, and PostgreSQL would move it to the next minute), a
// fraction of one digit or more, and an offset hour of 00-23 and minute of
// 00-59 (-00:00 is UTC). T and Z may be lower case, as RFC 3339 allows
// (section 5.6, the note under the grammar). Go's time.Parse is more
// lenient: it takes the offsets +24:00, -24:59 and +23:60 and shifts the
// instant by them, and takes a one-digit hour or a comma before the
// fraction.
//
// The instant must fall in a year from storage.MinYear to storage.MaxYear
// in UTC (storage.InYearRange). It is returned in UTC, truncated to the
// microsecond, the precision PostgreSQL keeps, so that what is checked (end
// after start) is what is stored. The bool is false for anything else.
func ParseDateTime(s string) (time.Time, bool) {
	t, issue := DateTimeIssue(s, "")
	return t, issue == ""
}

// DateTimeIssue is ParseDateTime with the reason for a refusal: "" when s
// is accepted, storage.YearRangeIssue for a well-formed date-time outside
// the years, else "must be an RFC 3339 date-time such as " example.
func DateTimeIssue(s, example string) (time.Time, string) {
	return dateTimeIssue(s, example, false)
}

// DateTimeUpIssue is DateTimeIssue rounding up instead: the first
// microsecond at or after the instant sent, for a query's bound compared
// with stored times (created_at >= since, created_at < until, a
// reservation starting before a window's end). Truncated, a bound with
// digits past the microsecond (…35.6046430001Z) would let in a record
// created before the instant "at or after" names. The years are checked
// after rounding, so an instant in the last microsecond before
// storage.MinYear that rounds up into it is taken; the last microsecond of
// storage.MaxYear is not rounded out of the years (an answer echoing the
// year 10000 could not be rendered).
func DateTimeUpIssue(s, example string) (time.Time, string) {
	return dateTimeIssue(s, example, true)
}

// dateTimeIssue is DateTimeIssue, rounding up when up is set and the
// fraction had digits past the microsecond other than zeros.
func dateTimeIssue(s, example string, up bool) (time.Time, string) {
	t, finer, ok := parseRFC3339(s)
	if !ok {
		return time.Time{}, "must be an RFC 3339 date-time such as " + example
	}
	if next := t.Add(time.Microsecond); up && finer && storage.InYearRange(next) {
		t = next
	}
	if !storage.InYearRange(t) {
		return time.Time{}, storage.YearRangeIssue
	}
	return t, ""
}

// parseRFC3339 reads s as ParseDateTime does, of any year, and reports
// whether digits past the microsecond other than zeros were dropped.
func parseRFC3339(s string) (t time.Time, finer bool, ok bool) {
	if len(s) < len("2006-01-02T15:04:05Z") ||
		s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != 't' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) ||
		month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false, false
	}
	rest := s[19:]
	micro := 0
	if rest[0] == '.' {
		n := 1 // rest[1:n] are the digits of the fraction
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return time.Time{}, false, false
		}
		for i := 1; i <= 6; i++ { // the microseconds; later digits are truncated
			micro *= 10
			if i < n {
				micro += int(rest[i] - '0')
			}
		}
		for i := 7; i < n; i++ {
			finer = finer || rest[i] != '0'
		}
		rest = rest[n:]
	}
	offset := 0
	if rest != "Z" && rest != "z" {
		if len(rest) != len("+07:00") || rest[0] != '+' && rest[0] != '-' || rest[3] != ':' {
			return time.Time{}, false, false
		}
		h, okH := digits(rest[1:3])
		m, okM := digits(rest[4:6])
		if !okH || !okM || h > 23 || m > 59 {
			return time.Time{}, false, false
		}
		offset = (h*60 + m) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, micro*1000, time.UTC).
		Add(-time.Duration(offset) * time.Second)
	return t, finer, true
}

// digits reads s, of ASCII digits only, as a number.
func digits(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

// daysIn is the number of days of a month (1-12) of a year.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// QueryDateTimeIssue is the issue of a date-time query parameter sent as
// raw, given its issue: a + in an offset sent unencoded arrives as a space
// (form encoding), so a value holding a space is told how to send it.
func QueryDateTimeIssue(raw, issue string) string {
	if strings.Contains(raw, " ") {
		return issue + " (a + in an offset must be sent as %2B)"
	}
	return issue
}

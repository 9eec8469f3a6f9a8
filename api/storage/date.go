package storage

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/eventapi/eventapi/platform/errs"
)

// MinYear and MaxYear are the first and last year of every date and
// date-time the API accepts, in bodies and query parameters alike. Outside
// them PostgreSQL refuses some values (it has no year 0) and RFC 3339 has no
// form for others (years past 9999).
const (
	MinYear = 1900
	MaxYear = 9999
)

// YearRangeIssue is the issue of a date or date-time outside the years.
var YearRangeIssue = fmt.Sprintf("must fall in the years %d to %d (in UTC)", MinYear, MaxYear)

// InYearRange reports whether t's year in UTC is from MinYear to MaxYear.
// UTC is what is stored and rendered: 9999-12-31T23:00:00-12:00 is in the
// year 10000 there, which no RFC 3339 date-time can show.
func InYearRange(t time.Time) bool {
	y := t.UTC().Year()
	return y >= MinYear && y <= MaxYear
}

// Date is a calendar date rendered as YYYY-MM-DD.
type Date struct{ time.Time }

// ParseDate parses YYYY-MM-DD of a year from MinYear to MaxYear.
func ParseDate(s string) (Date, error) {
	d, err := parseDate(s)
	if err != nil {
		return Date{}, err
	}
	if !InYearRange(d.Time) {
		return Date{}, ErrYearRange
	}
	return d, nil
}

// ErrYearRange is ParseDate's error for a well-formed date outside the
// years.
var ErrYearRange = errors.New(YearRangeIssue)

// parseDate parses YYYY-MM-DD of any year: what the database holds is read
// as it is, even when it predates the year range.
func parseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, err
	}
	return Date{t}, nil
}

// String renders YYYY-MM-DD.
func (d Date) String() string { return d.Format(time.DateOnly) }

// MarshalJSON renders "YYYY-MM-DD".
func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON parses "YYYY-MM-DD".
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Value writes the date for PostgreSQL.
func (d Date) Value() (driver.Value, error) { return d.String(), nil }

// Scan reads a PostgreSQL date.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		d.Time = time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC)
		return nil
	case string:
		p, err := parseDate(v[:min(len(v), 10)])
		*d = p
		return err
	case []byte:
		p, err := parseDate(string(v[:min(len(v), 10)]))
		*d = p
		return err
	}
	return fmt.Errorf("storage.Date: cannot scan %T", src)
}

// WindowIssue is the end_date issue of a record whose window (an event's or
// a reservation's start_date and end_date) ends at or before it starts.
const WindowIssue = "must be after start_date"

// WindowOK reports whether a record's window ends after it starts: the rule
// of every start_date and end_date pair, checked on the body's two dates
// where both are sent and on the stored record's where a PATCH sends one
// (the database's CHECK constraints hold it too).
func WindowOK(start, end time.Time) bool { return end.After(start) }

// CheckWindow is WindowOK as the validation_error on end_date.
func CheckWindow(start, end time.Time) error {
	if !WindowOK(start, end) {
		return errs.InvalidField("end_date", WindowIssue)
	}
	return nil
}

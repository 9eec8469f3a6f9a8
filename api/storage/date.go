package storage

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"
)

// Date is a calendar date rendered as YYYY-MM-DD.
type Date struct{ time.Time }

// ParseDate parses YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
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
		p, err := ParseDate(v[:min(len(v), 10)])
		*d = p
		return err
	case []byte:
		p, err := ParseDate(string(v[:min(len(v), 10)]))
		*d = p
		return err
	}
	return fmt.Errorf("storage.Date: cannot scan %T", src)
}

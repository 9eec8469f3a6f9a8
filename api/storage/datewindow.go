package storage

import "time"

// DateWindow is the optional window of a list of dated records (GET
// /events and GET /equipment_reservations): a record is
// listed when its [start_date, end_date) overlaps [Start, End); a nil
// bound is open (docs/decisions.md, "Lists by date").
type DateWindow struct {
	Start, End *time.Time
}

// Given reports whether the window narrows the list at all.
func (w DateWindow) Given() bool { return w.Start != nil || w.End != nil }

// Cond is the window as a list condition on the listed table's start_date
// and end_date; nil bounds are sent as NULL, an unbounded side of the
// range. The range form is what a GiST index over tstzrange(start_date,
// end_date) serves (migration 20261209010000), and && on two [) ranges is
// exactly start_date < End AND end_date > Start. Planned for its values on
// every call: a week in a long history and an open window want other plans.
func (w DateWindow) Cond() Cond {
	return WherePlanned("tstzrange(?TableAlias.start_date, ?TableAlias.end_date) && tstzrange(?::timestamptz, ?::timestamptz)", w.Start, w.End)
}

// ScopeParams are the window's bounds as ListScope parameters, in a
// canonical text, so that a cursor follows their values, not their
// spelling; "" for an open side.
func (w DateWindow) ScopeParams() []string {
	text := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return []string{text(w.Start), text(w.End)}
}

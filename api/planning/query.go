package planning

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/errs"
)

// MaxWindow bounds the window of one question, maxDays days.
const (
	maxDays   = 366
	MaxWindow = maxDays * 24 * time.Hour
)

// MaxHolds bounds the reservations one answer is built from: an
// availability answer (for up to MaxBatch equipment records) steps through
// and names every reservation holding stock in its window, a load lists
// every reservation on the truck, and a window of any length can hold any
// number of them. A question over more is refused (tooManyHolds) before
// its answer is built; at the bound an availability answer is about 1.5 MB
// and a load with its expansions about 5 MB (docs/availability.md,
// "Bounds"). Every such answer is built under the large-read bulkhead
// (rest.Env.LargeReads).
const MaxHolds = 5_000

// tooManyHolds turns stock.ErrTooManyHolds and reservations.ErrTooMuchText
// into the 422 of the parameter that sets the window (end, or event_id for
// a load by event), saying how to ask instead (ask).
func tooManyHolds(err error, field, ask string) error {
	switch {
	case errors.Is(err, stock.ErrTooManyHolds):
		return errs.InvalidField(field, fmt.Sprintf(
			"the window holds more than %d reservations, more than one answer lists: %s", MaxHolds, ask))
	case errors.Is(err, reservations.ErrTooMuchText):
		return errs.InvalidField(field, reservations.TooMuchTextIssue("the window's", ask))
	}
	return err
}

// MaxBatch is the most equipment ids GET /availability answers at once.
const MaxBatch = 100

// window reads into q the required start and end query parameters: RFC
// 3339 date-times, end after start, at most MaxWindow apart. Each bad one
// is an issue of q, and the window is then zero. Stored times are whole
// microseconds, so the window is widened to them: start rounded down and
// end up, and a reservation overlaps it exactly when it overlaps the
// window sent (an end truncated would leave out one starting in the
// microsecond it names); the order is judged on both rounded down
// (rest.Query.EndAfter).
func window(q *rest.Query) stock.Window {
	start, startOK := dateTime(q, "start", rest.DateTimeIssue)
	end, endOK := dateTime(q, "end", rest.DateTimeUpIssue)
	switch {
	case !startOK || !endOK:
	case !q.EndAfter(start):
		q.Issue("end", "must be after start")
	case end.Sub(start) > MaxWindow:
		q.Issue("end", fmt.Sprintf("must be at most %d days after start", maxDays))
	default:
		return stock.Window{Start: start, End: end}
	}
	return stock.Window{}
}

// dateTime reads into q one required RFC 3339 query parameter with parse,
// rest.DateTimeIssue or rest.DateTimeUpIssue, as every date-time of the API
// is read (rest.ParseDateTime): a year from storage.MinYear to
// storage.MaxYear, in UTC and at the microsecond precision PostgreSQL keeps
// (as reservation dates are stored). It reports whether the parameter is
// good.
func dateTime(q *rest.Query, name string, parse func(s, example string) (time.Time, string)) (time.Time, bool) {
	raw, _ := q.Raw(name)
	if raw == "" {
		q.Issue(name, "is required (an RFC 3339 date-time such as 2026-05-01T08:00:00Z)")
		return time.Time{}, false
	}
	t, issue := parse(raw, "2026-05-01T08:00:00Z")
	if issue != "" {
		q.Issue(name, rest.QueryDateTimeIssue(raw, issue))
		return time.Time{}, false
	}
	return t, true
}

// equipmentIDs reads into q the required, comma-separated equipment_id
// parameter: 1 to MaxBatch distinct uuids, in the order given (repeats are
// dropped); nil when bad. Empty elements (a list built with a trailing
// comma) name nothing, as in expand (rest.ListElements); a list of them
// alone names no id and is refused as a missing one is.
func equipmentIDs(q *rest.Query) []uuid.UUID {
	raw, _ := q.Raw("equipment_id")
	var ids []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, part := range rest.ListElements(raw) {
		id, err := storage.ParseUUID(part)
		if err != nil {
			q.Issue("equipment_id", "must be a comma-separated list of uuids")
			return nil
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		if len(ids) > MaxBatch {
			q.Issue("equipment_id", fmt.Sprintf("must name at most %d equipment ids", MaxBatch))
			return nil
		}
	}
	if len(ids) == 0 {
		q.Issue("equipment_id", "is required: a comma-separated list of equipment ids")
	}
	return ids
}

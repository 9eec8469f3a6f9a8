package planning

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/errs"
)

// MaxWindow bounds the window of one question, so an answer (every
// reservation overlapping it, for up to MaxBatch equipment) stays small.
const MaxWindow = 366 * 24 * time.Hour

// MaxBatch is the most equipment ids GET /availability answers at once.
const MaxBatch = 100

// window reads the required start and end query parameters: RFC 3339
// date-times, end after start, at most MaxWindow apart. Every bad one is
// named in one validation_error.
func window(c *fiber.Ctx) (stock.Window, error) {
	var issues []errs.FieldIssue
	start, issue := dateTime(c, "start")
	if issue != nil {
		issues = append(issues, *issue)
	}
	end, issue := dateTime(c, "end")
	if issue != nil {
		issues = append(issues, *issue)
	}
	if len(issues) == 0 {
		switch {
		case !end.After(start):
			issues = append(issues, errs.FieldIssue{Field: "end", Issue: "must be after start"})
		case end.Sub(start) > MaxWindow:
			issues = append(issues, errs.FieldIssue{Field: "end", Issue: "must be at most 366 days after start"})
		}
	}
	if len(issues) > 0 {
		return stock.Window{}, errs.Invalid(issues...)
	}
	return stock.Window{Start: start, End: end}, nil
}

// dateTime reads one required RFC 3339 query parameter as every date-time
// of the API is read (rest.ParseDateTime): a year from storage.MinYear to
// storage.MaxYear, in UTC and at the microsecond precision PostgreSQL keeps
// (as reservation dates are stored).
func dateTime(c *fiber.Ctx, name string) (time.Time, *errs.FieldIssue) {
	raw := c.Query(name)
	if raw == "" {
		return time.Time{}, &errs.FieldIssue{Field: name, Issue: "is required (an RFC 3339 date-time such as 2026-05-01T08:00:00Z)"}
	}
	t, issue := rest.DateTimeIssue(raw, "2026-05-01T08:00:00Z")
	if issue != "" {
		if strings.Contains(raw, " ") {
			issue += " (a + in an offset must be sent as %2B)"
		}
		return time.Time{}, &errs.FieldIssue{Field: name, Issue: issue}
	}
	return t, nil
}

// equipmentIDs reads the required, comma-separated equipment_id parameter:
// 1 to MaxBatch distinct uuids, in the order given (repeats are dropped).
// Empty elements (a list built with a trailing comma) name nothing, as in
// expand (rest.ListElements); a list of them alone names no id and is
// refused as a missing one is.
func equipmentIDs(c *fiber.Ctx) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, part := range rest.ListElements(c.Query("equipment_id")) {
		id, err := rest.ParseUUID(part)
		if err != nil {
			return nil, errs.InvalidField("equipment_id", "must be a comma-separated list of uuids")
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		if len(ids) > MaxBatch {
			return nil, errs.InvalidField("equipment_id", "must name at most 100 equipment ids")
		}
	}
	if len(ids) == 0 {
		return nil, errs.InvalidField("equipment_id", "is required: a comma-separated list of equipment ids")
	}
	return ids, nil
}

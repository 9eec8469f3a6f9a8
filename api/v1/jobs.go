package v1

import (
	"context"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/events"
)

// jobStatusOf maps each event status to its v1 job status (docs/v1.md,
// "Job"). The v1 status filter uses the same table in reverse.
var jobStatusOf = map[string]string{
	events.StatusInquiry:    "draft",
	events.StatusTentative:  "draft",
	events.StatusConfirmed:  "active",
	events.StatusInProgress: "active",
	events.StatusCompleted:  "completed",
	events.StatusCancelled:  "cancelled",
}

// jobStatuses are the v1 job statuses, in the order v1.yaml's JobStatus
// enum and docs/v1.md, "Job", list them.
var jobStatuses = []string{"active", "completed", "cancelled", "draft"}

// eventStatusesOf returns the event statuses that map to a job status.
func eventStatusesOf(job string) []string {
	var out []string
	for event, j := range jobStatusOf {
		if j == job {
			out = append(out, event)
		}
	}
	slices.Sort(out)
	return out
}

// Job is the v1 shape of an event: status is mapped, the dates are the UTC
// calendar dates of start_date and end_date, client_name is joined.
type Job struct {
	bun.BaseModel `bun:"table:events,alias:e"`

	ID             uuid.UUID    `bun:"id,pk,type:uuid" json:"id"`
	Name           string       `bun:"name" json:"name"`
	EventStatus    string       `bun:"status" json:"-"`
	Status         string       `bun:"-" json:"status"`
	StartDate      time.Time    `bun:"start_date" json:"-"`
	EndDate        time.Time    `bun:"end_date" json:"-"`
	EventDate      storage.Date `bun:"-" json:"event_date"`
	EventEndDate   storage.Date `bun:"-" json:"event_end_date"`
	Venue          string       `bun:"venue" json:"venue"`
	ClientName     *string      `bun:"client_name,scanonly" json:"client_name"`
	OrganizationID uuid.UUID    `bun:"organization_id,type:uuid" json:"organization_id"`
	CreatedAt      time.Time    `bun:"created_at" json:"created_at"`
	UpdatedAt      time.Time    `bun:"updated_at" json:"updated_at"`
}

var _ bun.AfterScanRowHook = (*Job)(nil)

// AfterScanRow derives the v1 fields from the event's columns.
func (j *Job) AfterScanRow(context.Context) error {
	j.Status = jobStatusOf[j.EventStatus]
	j.EventDate, j.EventEndDate = dateOf(j.StartDate), dateOf(j.EndDate)
	j.CreatedAt, j.UpdatedAt = j.CreatedAt.UTC(), j.UpdatedAt.UTC()
	return nil
}

func dateOf(t time.Time) storage.Date {
	u := t.UTC()
	return storage.Date{Time: time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)}
}

// jobView joins the client's name (same organization) and lists the newest
// jobs first.
var jobView = view[Job]{
	kind: "job",
	shape: func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.ColumnExpr("?TableAlias.*").
			ColumnExpr("cl.name AS client_name").
			Join("LEFT JOIN clients AS cl ON cl.organization_id = ?TableAlias.organization_id AND cl.id = ?TableAlias.client_id")
	},
	order: "e.created_at DESC, e.id DESC",
}

// jobFilters reads the optional v1 status filter.
func jobFilters(c *fiber.Ctx) ([]storage.Filter, error) {
	status, err := rest.QueryEnum(c, "status", jobStatuses...)
	if err != nil {
		return nil, err
	}
	if status == "" {
		return nil, nil
	}
	events := eventStatusesOf(status)
	return []storage.Filter{func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("?TableAlias.status IN (?)", bun.List(events))
	}}, nil
}

package v1store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Job is the v1 shape of an event: the dates are the UTC calendar dates of
// start_date and end_date, client_name is joined. Status is the v1 job
// status, which api/v1 maps from EventStatus (docs/v1.md, "Job").
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

// AfterScanRow derives the v1 dates from the event's columns and renders the
// timestamps in UTC.
func (j *Job) AfterScanRow(context.Context) error {
	j.EventDate, j.EventEndDate = dateOf(j.StartDate), dateOf(j.EndDate)
	j.CreatedAt, j.UpdatedAt = j.CreatedAt.UTC(), j.UpdatedAt.UTC()
	return nil
}

func dateOf(t time.Time) storage.Date {
	u := t.UTC()
	return storage.Date{Time: time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)}
}

// JobView joins the client's name (same organization) and lists the newest
// jobs first.
var JobView = View[Job]{
	Kind: "job",
	shape: func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.ColumnExpr("?TableAlias.*").
			ColumnExpr("cl.name AS client_name").
			Join("LEFT JOIN clients AS cl ON cl.organization_id = ?TableAlias.organization_id AND cl.id = ?TableAlias.client_id")
	},
	order: "e.created_at DESC, e.id DESC",
}

// EventStatusIn keeps the jobs whose event status is one of statuses.
func EventStatusIn(statuses []string) storage.Filter {
	return func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("?TableAlias.status IN (?)", bun.List(statuses))
	}
}

package events

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Event is a production the organization works on (a job, in v1 terms).
type Event struct {
	bun.BaseModel `bun:"table:events,alias:ev"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID  `bun:"organization_id,type:uuid" json:"-"`
	Name           string     `bun:"name" json:"name"`
	Status         string     `bun:"status" json:"status"`
	StartDate      time.Time  `bun:"start_date" json:"start_date"`
	EndDate        time.Time  `bun:"end_date" json:"end_date"`
	Venue          string     `bun:"venue" json:"venue"`
	ClientID       *uuid.UUID `bun:"client_id,type:uuid" json:"client_id"`
	Description    *string    `bun:"description" json:"description"`
	Notes          *string    `bun:"notes" json:"notes"`
	Demo           bool       `bun:"demo" json:"demo"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (e *Event) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} }

// Kind names the resource in errors.
const Kind = "event"

// Event statuses (docs/decisions.md "Catalogue"); any move between them is allowed.
const (
	StatusInquiry    = "inquiry"
	StatusTentative  = "tentative"
	StatusConfirmed  = "confirmed"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
)

// Statuses lists every event status, the default first.
var Statuses = []string{StatusInquiry, StatusTentative, StatusConfirmed, StatusInProgress, StatusCompleted, StatusCancelled}

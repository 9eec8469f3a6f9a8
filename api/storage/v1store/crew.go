package v1store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Crew is the v1 shape of a crew member: name is "first last".
type Crew struct {
	bun.BaseModel `bun:"table:crew_members,alias:cm"`

	ID             uuid.UUID `bun:"id,pk,type:uuid" json:"id"`
	Name           string    `bun:"-" json:"name"`
	FirstName      string    `bun:"first_name" json:"-"`
	LastName       string    `bun:"last_name" json:"-"`
	Email          *string   `bun:"email" json:"email"`
	Role           *string   `bun:"role" json:"role"`
	Phone          *string   `bun:"phone" json:"phone"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"organization_id"`
	CreatedAt      time.Time `bun:"created_at" json:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at" json:"updated_at"`
}

var _ bun.AfterScanRowHook = (*Crew)(nil)

// AfterScanRow derives name and renders the timestamps in UTC.
func (m *Crew) AfterScanRow(context.Context) error {
	m.Name = m.FirstName + " " + m.LastName
	m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return nil
}

// CrewView orders alphabetically by last name, then first name
// (alphabetical), then id.
var CrewView = View[Crew]{
	Kind:  "crew member",
	order: "cm.last_name " + alphabetical + " ASC, cm.first_name " + alphabetical + " ASC, cm.id ASC",
}

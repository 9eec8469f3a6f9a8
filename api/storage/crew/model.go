package crew

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Member is a crew member (technician, rigger, driver...) of the organization.
type Member struct {
	bun.BaseModel `bun:"table:crew_members,alias:cm"`

	ID             uuid.UUID `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"-"`
	FirstName      string    `bun:"first_name" json:"first_name"`
	LastName       string    `bun:"last_name" json:"last_name"`
	Email          *string   `bun:"email" json:"email"`
	Phone          *string   `bun:"phone" json:"phone"`
	Role           *string   `bun:"role" json:"role"`
	Notes          *string   `bun:"notes" json:"notes"`
	IsActive       bool      `bun:"is_active" json:"is_active"`
	Demo           bool      `bun:"demo" json:"demo"`
	CreatedAt      time.Time `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (m *Member) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: m.CreatedAt, ID: m.ID} }

// Kind names the resource in errors.
const Kind = "crew member"

package clients

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Client is a customer of the organization.
type Client struct {
	bun.BaseModel `bun:"table:clients,alias:c"`

	ID             uuid.UUID `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"-"`
	Name           string    `bun:"name" json:"name"`
	Email          *string   `bun:"email" json:"email"`
	Phone          *string   `bun:"phone" json:"phone"`
	Address        *string   `bun:"address" json:"address"`
	City           *string   `bun:"city" json:"city"`
	State          *string   `bun:"state" json:"state"`
	Zip            *string   `bun:"zip" json:"zip"`
	Notes          *string   `bun:"notes" json:"notes"`
	Demo           bool      `bun:"demo" json:"demo"`
	CreatedAt      time.Time `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (c *Client) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: c.CreatedAt, ID: c.ID} }

// Kind names the resource in errors.
const Kind = "client"

package quotes

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/money"
)

// Quote is a priced offer to a client, numbered Q-000001 per organization.
type Quote struct {
	bun.BaseModel `bun:"table:quotes,alias:q"`

	ID             uuid.UUID    `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID    `bun:"organization_id,type:uuid" json:"-"`
	QuoteNumber    string       `bun:"quote_number" json:"quote_number"`
	Title          string       `bun:"title" json:"title"`
	Status         string       `bun:"status" json:"status"`
	TotalAmount    money.Amount `bun:"total_amount" json:"total_amount"`
	ClientID       *uuid.UUID   `bun:"client_id,type:uuid" json:"client_id"`
	EventID        *uuid.UUID   `bun:"event_id,type:uuid" json:"event_id"`
	Notes          *string      `bun:"notes" json:"notes"`
	InternalNotes  *string      `bun:"internal_notes" json:"internal_notes"`
	QuoteType      string       `bun:"quote_type" json:"quote_type"`
	Demo           bool         `bun:"demo" json:"demo"`
	CreatedAt      time.Time    `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time    `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`

	// LineItems is set on the detail and on write responses; the list
	// leaves it out.
	LineItems *[]documents.Line           `bun:"-" json:"line_items,omitempty"`
	Client    related.One[related.Client] `bun:"-" json:"client,omitzero"`
	Event     related.One[related.Event]  `bun:"-" json:"event,omitzero"`
}

// PageKey implements storage.Row.
func (q *Quote) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: q.CreatedAt, ID: q.ID} }

// Kind names the resource in errors.
const Kind = "quote"

// StatusApproved is the status that generates the quote's pick list,
// stated by the package that makes it.
const StatusApproved = picklists.QuoteApproved

// Statuses lists every quote status, the default first; any move between
// them is allowed.
var Statuses = []string{"draft", "sent", StatusApproved, "declined", "cancelled"}

// PartyIDs implements documents.Party.
func (q *Quote) PartyIDs() (client, event *uuid.UUID) { return q.ClientID, q.EventID }

// SetParty implements documents.Party.
func (q *Quote) SetParty(client related.One[related.Client], event related.One[related.Event]) {
	q.Client, q.Event = client, event
}

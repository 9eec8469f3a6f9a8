package invoices

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/money"
)

// Invoice is a bill to a client, numbered INV-000001 per organization.
type Invoice struct {
	bun.BaseModel `bun:"table:invoices,alias:inv"`

	ID             uuid.UUID     `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID     `bun:"organization_id,type:uuid" json:"-"`
	InvoiceNumber  string        `bun:"invoice_number" json:"invoice_number"`
	Title          string        `bun:"title" json:"title"`
	Status         string        `bun:"status" json:"status"`
	TotalAmount    money.Amount  `bun:"total_amount" json:"total_amount"`
	ClientID       *uuid.UUID    `bun:"client_id,type:uuid" json:"client_id"`
	EventID        *uuid.UUID    `bun:"event_id,type:uuid" json:"event_id"`
	IssueDate      *storage.Date `bun:"issue_date,type:date" json:"issue_date"`
	DueDate        storage.Date  `bun:"due_date,type:date" json:"due_date"`
	Notes          *string       `bun:"notes" json:"notes"`
	Demo           bool          `bun:"demo" json:"demo"`
	CreatedAt      time.Time     `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time     `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`

	// LineItems is set on the detail and on write responses; the list
	// leaves it out.
	LineItems *[]documents.Line           `bun:"-" json:"line_items,omitempty"`
	Client    related.One[related.Client] `bun:"-" json:"client,omitzero"`
	Event     related.One[related.Event]  `bun:"-" json:"event,omitzero"`
}

// PageKey implements storage.Row.
func (i *Invoice) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: i.CreatedAt, ID: i.ID} }

// DocID implements documents.Doc.
func (i *Invoice) DocID() uuid.UUID { return i.ID }

// SetLines implements documents.Doc.
func (i *Invoice) SetLines(lines []documents.Line) { i.LineItems = &lines }

// Kind names the resource in errors.
const Kind = "invoice"

// Statuses lists every invoice status, the default first; any move between
// them is allowed.
var Statuses = []string{"draft", "sent", "paid", "void"}

// PartyIDs implements documents.Party.
func (i *Invoice) PartyIDs() (client, event *uuid.UUID) { return i.ClientID, i.EventID }

// SetParty implements documents.Party.
func (i *Invoice) SetParty(client related.One[related.Client], event related.One[related.Event]) {
	i.Client, i.Event = client, event
}

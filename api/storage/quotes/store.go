package quotes

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/tenancy"
)

// kind describes quotes to the shared document store.
var kind = documents.Kind{Name: Kind, Lines: documents.QuoteLines, Numbers: documents.QuoteNumbers}

// DocID implements documents.Doc.
func (q *Quote) DocID() uuid.UUID { return q.ID }

// SetLines implements documents.Doc.
func (q *Quote) SetLines(lines []documents.Line) { q.LineItems = &lines }

// Get loads one quote of org with its line items.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Quote, error) {
	return documents.Get[Quote](ctx, db, org, id, kind)
}

// ListFilter narrows the quote list.
type ListFilter struct{ Status string }

// List returns one page of org's quotes (without line items).
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Quote], error) {
	var filters []storage.Cond
	if f.Status != "" {
		filters = append(filters, storage.Where("?TableAlias.status = ?", f.Status))
	}
	return storage.List[Quote](ctx, db, org, p, filters...)
}

// Create inserts a quote into org (numbered Q-000001.. unless the body
// supplies a number); a quote created approved gets its pick list in the
// same transaction.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, w documents.Write) (*Quote, error) {
	return documents.Create[Quote](ctx, db, t, kind, w, approval(t, w))
}

// Update applies w to the quote id of org; moving it to approved creates its
// pick list in the same transaction unless it already has one.
func Update(ctx context.Context, db bun.IDB, t tenancy.Tenant, id uuid.UUID, w documents.Write) (*Quote, error) {
	return documents.Update[Quote](ctx, db, t.Org, id, kind, w, both(approval(t, w), followEvent(t, w)))
}

// followEvent is the hook that moves the pick list of a quote to the event
// w sets on it: the list carries its quote's event (docs/decisions.md,
// "Quotes, invoices and pick lists"), and a pick list's own PATCH cannot
// set it.
func followEvent(t tenancy.Tenant, w documents.Write) documents.Hook[Quote] {
	if _, ok := w.Changes.Value("event_id"); !ok {
		return nil
	}
	return func(ctx context.Context, tx bun.IDB, q *Quote) error {
		return picklists.FollowQuoteEvent(ctx, tx, t.Org, q.ID, q.EventID)
	}
}

// both runs a, then b; either may be nil.
func both(a, b documents.Hook[Quote]) documents.Hook[Quote] {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return func(ctx context.Context, tx bun.IDB, q *Quote) error {
		if err := a(ctx, tx, q); err != nil {
			return err
		}
		return b(ctx, tx, q)
	}
}

// approval is the hook that creates the pick list of a quote w approves.
func approval(t tenancy.Tenant, w documents.Write) documents.Hook[Quote] {
	if w.Status != StatusApproved {
		return nil
	}
	return func(ctx context.Context, tx bun.IDB, q *Quote) error {
		src := picklists.QuoteSource{QuoteID: q.ID, Title: q.Title, EventID: q.EventID, Demo: q.Demo, Lines: sourceLines(q)}
		_, err := picklists.CreateForQuote(ctx, tx, t, src)
		return err
	}
}

// sourceLines are q's lines as its pick list is made from them.
func sourceLines(q *Quote) []picklists.SourceLine {
	var out []picklists.SourceLine
	if q.LineItems != nil {
		for _, l := range *q.LineItems {
			out = append(out, picklists.SourceLine{EquipmentID: l.EquipmentID, Description: l.Description, Quantity: l.Quantity})
		}
	}
	return out
}

// PickListBehind returns the id of q's standing pick list (not archived)
// when it no longer holds what the quote says: q is not approved (the list
// is for a job that may be off), or the list's items are not what q's lines
// make (a revision after the approval that made it, or edits of the list);
// nil otherwise, and when it has none. q is the quote as a write returns
// it, with its lines.
func PickListBehind(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, q *Quote) (*uuid.UUID, error) {
	id, err := picklists.StandingForQuote(ctx, db, org, q.ID)
	if err != nil || id == nil || q.Status != StatusApproved {
		return id, err
	}
	same, err := picklists.MatchesLines(ctx, db, org, *id, sourceLines(q))
	if err != nil || same {
		return nil, err
	}
	return id, nil
}

package quotes

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// WarningPickListNotUpdated is the code of the warning of a quote PATCH that
// leaves the quote's pick list as its approval made it while the quote moved
// on (docs/decisions.md, "Quotes, invoices and pick lists").
const WarningPickListNotUpdated = "pick_list_not_updated"

// PickListNotUpdated names the pick list a quote PATCH left as it was.
type PickListNotUpdated struct {
	PickListID uuid.UUID `json:"pick_list_id"`
	// QuoteStatus is the quote's status after the PATCH.
	QuoteStatus string `json:"quote_status"`
	// LineItemsSent says whether the PATCH replaced the quote's lines.
	LineItemsSent bool `json:"line_items_sent"`
}

// warnPickList is the check, after a PATCH that sends a quote's lines or
// sets its status, for a pick list of the quote that is not archived and
// no longer holds what the quote says (quotes.PickListBehind): the quote is
// no longer approved, or the list's items are not what its lines make. The
// list is made once, from the lines approved first, and no later write of
// the quote changes it, so a revised or re-approved quote's warehouse would
// pack the old lines, and a cancelled one's a job that is off. A list this
// PATCH's approval made follows its lines; of two PATCHes of one quote at
// once (they run one after the other, on the quote's row lock) the second
// finds the first's list. The write stands; the warning names the list, to
// a key that may read pick lists.
func warnPickList(ctx context.Context, w docstore.Write) crud.WarnCheck[quotes.Quote] {
	linesSent := w.Lines != nil
	if !linesSent && w.Status == "" || auth.Check(ctx, tenancy.PickListReaders...) != nil {
		return nil
	}
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, q *quotes.Quote) ([]rest.Warning, error) {
		id, err := quotes.PickListBehind(ctx, db, org, q)
		if err != nil || id == nil {
			return nil, err
		}
		return []rest.Warning{{Code: WarningPickListNotUpdated,
			Details: PickListNotUpdated{PickListID: *id, QuoteStatus: q.Status, LineItemsSent: linesSent}}}, nil
	}
}

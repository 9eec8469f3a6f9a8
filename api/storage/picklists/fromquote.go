package picklists

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// MaxItemQuantity is the largest quantity a pick list item write accepts
// (POST and PATCH /pick_list_items): the maximum of quantity in openapi.yaml's
// PickListItemCreate, which PickListItemUpdate reuses through its anchor. It
// is what a quote can sum for one equipment record, 500 lines of at most
// 1,000,000 each, so that a pick list made from a quote holds one item per
// equipment record (docs/decisions.md, "Quotes, invoices and pick lists")
// and every item survives a GET → PATCH round trip. The storage layer
// cannot read the document (docs/architecture.md), so the value is stated
// here once; a test in api/picklists holds it equal
// to the document's item maximum and to the quote's line limits.
const MaxItemQuantity = 500 * 1_000_000

// QuoteSource is what an approved quote hands to its pick list.
type QuoteSource struct {
	QuoteID uuid.UUID
	Title   string
	EventID *uuid.UUID
	// Demo is the quote's demo flag, which its pick list and items take
	// whichever key approves it: the list is the quote's, so cleaning up
	// test data by demo: true takes a test quote's list and never a live
	// quote's (docs/decisions.md, "Quotes, invoices and pick lists").
	Demo  bool
	Lines []SourceLine
}

// SourceLine is one line of the approved quote.
type SourceLine struct {
	EquipmentID *uuid.UUID
	Description string
	Quantity    int
}

// CreateForQuote creates the pick list of an approved quote, inside the
// transaction that approves it: a draft list named after the quote, with its
// quote_id and event_id, its equipment lines merged per equipment record and
// one custom_description item per line without equipment (itemsFromLines
// says how, and in which order). A quote that already has a pick list keeps
// it and gets no second one (the approval holds the quote's row lock, which
// Create takes too; the partial unique index on pick_lists (organization_id,
// quote_id) backs it); created reports which happened.
func CreateForQuote(ctx context.Context, tx bun.IDB, t tenancy.Tenant, q QuoteSource) (created bool, err error) {
	var rows []struct {
		ID        uuid.UUID `bun:"id"`
		CreatedAt time.Time `bun:"created_at"`
	}
	items := itemsFromLines(q.Lines)
	// The list's updated_at is its last item's created_at (below), as if
	// each item's create had moved it, which the API's item creates do.
	err = tx.NewRaw(`INSERT INTO pick_lists (organization_id, name, status, event_id, quote_id, demo, created_at, updated_at)
		SELECT ?, ?, ?, ?, ?, ?, now.t, now.t + ? * interval '1 microsecond' FROM (SELECT clock_timestamp() AS t) AS now
		ON CONFLICT (organization_id, quote_id) WHERE quote_id IS NOT NULL DO NOTHING
		RETURNING id, created_at`, t.Org, q.Title, StatusDraft, q.EventID, q.QuoteID, q.Demo, len(items)).Scan(ctx, &rows)
	if err != nil {
		return false, database.Error(err)
	}
	if len(rows) == 0 {
		return false, nil
	}
	if len(items) == 0 {
		return true, nil
	}
	for i := range items {
		items[i].PickListID = rows[0].ID
		items[i].OrganizationID = t.Org.UUID
		items[i].Demo = q.Demo
		// Items are read in (created_at, id) order. The rows of one INSERT
		// may share a clock_timestamp() microsecond, which would leave
		// their order to random ids: each item is stamped one microsecond
		// after the one before it instead.
		items[i].CreatedAt = rows[0].CreatedAt.Add(time.Duration(i+1) * time.Microsecond)
		items[i].UpdatedAt = items[i].CreatedAt
	}
	if _, err := tx.NewInsert().Model(&items).Exec(ctx); err != nil {
		return false, database.Error(err)
	}
	return true, nil
}

// itemsFromLines folds quote lines into pick list items (docs/decisions.md,
// "Quotes, invoices and pick lists"): one
// item per equipment record with the quantities of its lines summed, where
// its first line is, and one custom_description item per line without
// equipment. A sum never exceeds MaxItemQuantity, which covers the largest
// quote (a test in api/picklists holds it to the document's line limits).
func itemsFromLines(lines []SourceLine) []Item {
	var items []Item
	at := map[uuid.UUID]int{} // equipment → index of its item
	for _, l := range lines {
		if l.EquipmentID != nil {
			if i, ok := at[*l.EquipmentID]; ok {
				items[i].Quantity += l.Quantity
				continue
			}
			eq := *l.EquipmentID
			at[eq] = len(items)
			items = append(items, Item{EquipmentID: &eq, Quantity: l.Quantity, Stage: Stages[0]})
			continue
		}
		d := l.Description
		items = append(items, Item{CustomDescription: &d, Quantity: l.Quantity, Stage: Stages[0]})
	}
	return items
}

// FollowQuoteEvent gives the pick list of quote quoteID, if it has one, the
// quote's event eventID (nil for none), in the quote's write transaction.
// A list already on that event is left alone, so its updated_at stays and
// no change is recorded.
func FollowQuoteEvent(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, quoteID uuid.UUID, eventID *uuid.UUID) error {
	_, err := tx.NewRaw(`UPDATE pick_lists SET event_id = ?, updated_at = clock_timestamp()
		WHERE organization_id = ? AND quote_id = ? AND event_id IS DISTINCT FROM ?`,
		eventID, org, quoteID, eventID).Exec(ctx)
	return database.Error(err)
}

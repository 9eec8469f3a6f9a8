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
// equipment record (DECISIONS) and every item survives a GET → PATCH round
// trip. The storage layer cannot read the document (docs/architecture.md),
// so the value is stated here once; a test in api/picklists holds it equal
// to the document's. itemsFromLines still splits at it, should the quote
// limits ever outgrow it.
const MaxItemQuantity = 500 * 1_000_000

// QuoteSource is what an approved quote hands to its pick list.
type QuoteSource struct {
	QuoteID uuid.UUID
	Title   string
	EventID *uuid.UUID
	Lines   []SourceLine
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
	err = tx.NewRaw(`INSERT INTO pick_lists (organization_id, name, status, event_id, quote_id, demo)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, quote_id) WHERE quote_id IS NOT NULL DO NOTHING
		RETURNING id, created_at`, t.Org, q.Title, StatusDraft, q.EventID, q.QuoteID, t.Demo).Scan(ctx, &rows)
	if err != nil {
		return false, database.Error(err)
	}
	if len(rows) == 0 {
		return false, nil
	}
	items := itemsFromLines(q.Lines, MaxItemQuantity)
	if len(items) == 0 {
		return true, nil
	}
	for i := range items {
		items[i].PickListID = rows[0].ID
		items[i].OrganizationID = t.Org.UUID
		items[i].Demo = t.Demo
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

// itemsFromLines folds quote lines into pick list items of at most limit each
// (the quantities per equipment record, and per line without one, stay
// exactly the quote's):
//
//   - a line with equipment adds its quantity to the open item of that
//     equipment until the item holds limit; the rest opens the next item of
//     that equipment (as many full ones as needed, then the remainder), and
//     the new open item is that last one;
//   - a line without equipment makes its own item(s) from its description,
//     split the same way, never merged;
//   - items are in the order of the lines that opened them: an equipment's
//     first item where its first line is, each further item where the line
//     that overflowed the previous one is.
//
// So every item of an equipment record but its last holds exactly limit.
func itemsFromLines(lines []SourceLine, limit int) []Item {
	var items []Item
	open := map[uuid.UUID]int{} // equipment → index of its item being filled
	add := func(l SourceLine, qty int) {
		it := Item{Quantity: qty, Stage: Stages[0]}
		if l.EquipmentID != nil {
			eq := *l.EquipmentID
			it.EquipmentID = &eq
			open[eq] = len(items)
		} else {
			d := l.Description
			it.CustomDescription = &d
		}
		items = append(items, it)
	}
	for _, l := range lines {
		rest := l.Quantity
		if l.EquipmentID != nil {
			if i, ok := open[*l.EquipmentID]; ok {
				n := min(rest, limit-items[i].Quantity)
				items[i].Quantity += n
				rest -= n
			}
		}
		for rest > 0 {
			n := min(rest, limit)
			add(l, n)
			rest -= n
		}
	}
	return items
}

package picklists

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

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
// quote_id and event_id, one item per equipment record (the quantities of
// its lines summed, in first-line order) and one custom_description item per
// line without equipment. A quote that already has a pick list keeps it and
// gets no second one (the partial unique index on pick_lists (organization_id,
// quote_id) settles concurrent approvals); created reports which happened.
func CreateForQuote(ctx context.Context, tx bun.IDB, t tenancy.Tenant, q QuoteSource) (created bool, err error) {
	var ids []uuid.UUID
	err = tx.NewRaw(`INSERT INTO pick_lists (organization_id, name, status, event_id, quote_id, demo)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, quote_id) WHERE quote_id IS NOT NULL DO NOTHING
		RETURNING id`, t.Org, q.Title, StatusDraft, q.EventID, q.QuoteID, t.Demo).Scan(ctx, &ids)
	if err != nil {
		return false, database.Error(err)
	}
	if len(ids) == 0 {
		return false, nil
	}
	items := itemsFromLines(q.Lines)
	if len(items) == 0 {
		return true, nil
	}
	for i := range items {
		items[i].PickListID = ids[0]
		items[i].OrganizationID = t.Org.UUID
		items[i].Demo = t.Demo
	}
	if _, err := tx.NewInsert().Model(&items).Exec(ctx); err != nil {
		return false, database.Error(err)
	}
	return true, nil
}

// itemsFromLines folds quote lines into pick list items.
func itemsFromLines(lines []SourceLine) []Item {
	var items []Item
	at := map[uuid.UUID]int{}
	for _, l := range lines {
		if l.EquipmentID == nil {
			d := l.Description
			items = append(items, Item{CustomDescription: &d, Quantity: l.Quantity, Stage: Stages[0]})
			continue
		}
		if i, ok := at[*l.EquipmentID]; ok {
			items[i].Quantity += l.Quantity
			continue
		}
		at[*l.EquipmentID] = len(items)
		eq := *l.EquipmentID
		items = append(items, Item{EquipmentID: &eq, Quantity: l.Quantity, Stage: Stages[0]})
	}
	return items
}

package picklists

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// StandingForQuote returns the id of the pick list of quote when it is not
// archived, or nil: the list a warehouse still works from.
func StandingForQuote(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, quote uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := db.NewSelect().Table("pick_lists").Column("id").
		Where("organization_id = ?", org).Where("quote_id = ?", quote).Where("NOT archived").
		Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, database.Error(err)
	}
	return &ids[0], nil
}

// MatchesLines reports whether the items of org's pick list id are what
// lines make (itemsFromLines): the same equipment records and custom
// descriptions with the same quantities, in any order, and nothing else.
func MatchesLines(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, lines []SourceLine) (bool, error) {
	var items []Item
	if err := db.NewSelect().Model(&items).Column("equipment_id", "custom_description", "quantity").
		Where("organization_id = ?", org).Where("pick_list_id = ?", id).Scan(ctx); err != nil {
		return false, database.Error(err)
	}
	count := map[itemKey]int{}
	for _, it := range itemsFromLines(lines) {
		count[keyOf(it)]++
	}
	for _, it := range items {
		count[keyOf(it)]--
	}
	for _, n := range count {
		if n != 0 {
			return false, nil
		}
	}
	return true, nil
}

// itemKey is what MatchesLines compares of an item.
type itemKey struct {
	equipment   uuid.UUID
	description string
	custom      bool
	quantity    int
}

func keyOf(it Item) itemKey {
	k := itemKey{quantity: it.Quantity}
	if it.EquipmentID != nil {
		k.equipment = *it.EquipmentID
	}
	if it.CustomDescription != nil {
		k.description, k.custom = *it.CustomDescription, true
	}
	return k
}

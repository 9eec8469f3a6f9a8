package equipment

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one equipment record of org. Other packages use it to check and
// inline equipment references.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Equipment, error) {
	return storage.Get[Equipment](ctx, db, org, id, Kind)
}

// ListFilter narrows the equipment list.
type ListFilter struct {
	// Category is a category id, or a category name matched exactly but
	// case-insensitively. Empty: no filter.
	Category string
}

// List returns one page of org's equipment.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Equipment], error) {
	var filters []storage.Cond
	if f.Category != "" {
		filters = append(filters, categoryFilter(org, f.Category))
	}
	return storage.List[Equipment](ctx, db, org, p, filters...)
}

// categoryFilter matches a category id (in the 36-character form, either
// case), else a category name of org, ignoring case as the names' unique
// index does: PostgreSQL's lower() on both sides. (Go's lowering of the
// term agrees with it under the C.UTF-8 locale, not under every locale a
// server may have: ICU, LC_CTYPE=C.)
func categoryFilter(org tenancy.OrganizationID, category string) storage.Cond {
	if id, ok := categoryID(category); ok {
		return storage.Where("?TableAlias.category_id = ?", id)
	}
	return storage.Where("?TableAlias.category_id IN (SELECT id FROM equipment_categories WHERE organization_id = ? AND lower(name) = lower(?))",
		org, category)
}

// categoryID reads the category filter as an id, as the API reads every
// uuid (storage.ParseUUID).
func categoryID(category string) (uuid.UUID, bool) {
	id, err := storage.ParseUUID(category)
	return id, err == nil
}

// CategoryScope is the value of the category filter that a list cursor is
// bound to: the id, or the name lower-cased (in Go; the filter itself
// compares with PostgreSQL's lower()), so that a cursor goes on with the
// same value spelled otherwise (docs/decisions.md: a cursor is bound to
// the values of the filters).
func CategoryScope(category string) string {
	if id, ok := categoryID(category); ok {
		return id.String()
	}
	return strings.ToLower(strings.TrimSpace(category))
}

// Create inserts equipment into org from decoded fields. A category_id
// outside org violates the composite foreign key: 422 on category_id.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Equipment, error) {
	return storage.Create[Equipment](ctx, db, t, ch)
}

// Update applies ch to the equipment id of org.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Equipment, error) {
	return storage.Update[Equipment](ctx, db, org, id, Kind, ch)
}

// CategoryRefs loads the categories ids of org in one query, keyed by id.
// Ids of other organizations are simply absent.
func CategoryRefs(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID) (map[uuid.UUID]CategoryRef, error) {
	out := make(map[uuid.UUID]CategoryRef, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Category
	err := db.NewSelect().Model(&rows).Column("id", "name", "color").
		Where("?TableAlias.organization_id = ?", org).
		Where("?TableAlias.id IN (?)", bun.List(ids)).
		Scan(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	for _, r := range rows {
		out[r.ID] = CategoryRef{ID: r.ID, Name: r.Name, Color: r.Color}
	}
	return out, nil
}

// Expand inlines the category of each item with one query for all of them.
func Expand(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, items []Equipment) ([]WithCategory, error) {
	seen := map[uuid.UUID]bool{}
	var ids []uuid.UUID
	for _, it := range items {
		if it.CategoryID != nil && !seen[*it.CategoryID] {
			seen[*it.CategoryID] = true
			ids = append(ids, *it.CategoryID)
		}
	}
	refs, err := CategoryRefs(ctx, db, org, ids)
	if err != nil {
		return nil, err
	}
	out := make([]WithCategory, len(items))
	for i := range items {
		out[i].Equipment = &items[i]
		if id := items[i].CategoryID; id != nil {
			if ref, ok := refs[*id]; ok {
				out[i].Category = &ref
			}
		}
	}
	return out, nil
}

package equipment

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// GetCategory loads one category of org.
func GetCategory(ctx context.Context, db bun.IDB, org, id uuid.UUID) (*Category, error) {
	return scoped.Get[Category](ctx, db, org, id, CategoryKind)
}

// ListCategories returns one page of org's categories.
func ListCategories(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest) (scoped.Page[Category], error) {
	return scoped.List[Category](ctx, db, org, p)
}

// CreateCategory inserts a category into org. A name already used in org,
// whatever its case, is 409 duplicate_record (unique index on lower(name)).
func CreateCategory(ctx context.Context, db bun.IDB, org uuid.UUID, demo bool, ch scoped.Changes) (*Category, error) {
	return scoped.Create[Category](ctx, db, org, demo, ch)
}

// UpdateCategory applies ch to the category id of org.
func UpdateCategory(ctx context.Context, db bun.IDB, org, id uuid.UUID, ch scoped.Changes) (*Category, error) {
	return scoped.Update[Category](ctx, db, org, id, CategoryKind, ch)
}

package equipment

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// GetCategory loads one category of org.
func GetCategory(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Category, error) {
	return storage.Get[Category](ctx, db, org, id, CategoryKind)
}

// ListCategories returns one page of org's categories.
func ListCategories(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[Category], error) {
	return storage.List[Category](ctx, db, org, p)
}

// CategoryTable holds the categories (for reference checks).
const CategoryTable = "equipment_categories"

// CheckCategoryName returns 409 duplicate_record on name, with the holder in
// details.existing_id, when another category of org than except already has
// name, whatever its case. The unique index on (organization_id,
// lower(name)) stays the final word under concurrency (NameClash); this
// check answers the common case without a failed statement, which would
// abort the caller's transaction.
func CheckCategoryName(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, name string, except uuid.UUID) error {
	var holder uuid.UUID
	err := db.NewSelect().Table(CategoryTable).Column("id").
		Where("organization_id = ?", org).Where("lower(name) = lower(?)", name).Where("id <> ?", except).
		Limit(1).Scan(ctx, &holder)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return database.Error(err)
	}
	return errs.New(errs.DuplicateRecord, "a category with this name already exists").
		WithDetails(map[string]any{"field": "name", "existing_id": holder})
}

// NameClash gives err, the result of a write of a category (except on
// create: uuid.Nil) setting name, the answer of CheckCategoryName when the
// unique index refused it: a concurrent write took the name between the
// check and the write. Outside a transaction (the API's writes) the holder
// can be read; otherwise err is kept as it is.
func NameClash(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, name *string, except uuid.UUID, err error) error {
	if name == nil || !errs.Is(err, errs.DuplicateRecord) {
		return err
	}
	if again := CheckCategoryName(ctx, db, org, *name, except); errs.Is(again, errs.DuplicateRecord) {
		return again
	}
	return err
}

// CreateCategory inserts a category into org. A name already used in org,
// whatever its case, is 409 duplicate_record (unique index on lower(name)).
func CreateCategory(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Category, error) {
	return storage.Create[Category](ctx, db, t, ch)
}

// UpdateCategory applies ch to the category id of org.
func UpdateCategory(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Category, error) {
	return storage.Update[Category](ctx, db, org, id, CategoryKind, ch)
}

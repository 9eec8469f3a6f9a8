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
// lower(name)) stays the final word under concurrency (clashGuarded); this
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

// CreateCategory inserts a category into org. A name already used in org,
// whatever its case, is 409 duplicate_record (unique index on lower(name))
// naming the holder (clashGuarded).
func CreateCategory(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Category, error) {
	var out *Category
	err := clashGuarded(ctx, db, t.Org, ch, uuid.Nil, func(db bun.IDB) (err error) {
		out, err = storage.Create[Category](ctx, db, t, ch)
		return err
	})
	return out, err
}

// UpdateCategory applies ch to the category id of org; a name another
// category holds is 409 as on create.
func UpdateCategory(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Category, error) {
	var out *Category
	err := clashGuarded(ctx, db, org, ch, id, func(db bun.IDB) (err error) {
		out, err = storage.Update[Category](ctx, db, org, id, CategoryKind, ch)
		return err
	})
	return out, err
}

// clashGuarded runs write, a write of a category of org (except on create:
// uuid.Nil) with the assignments ch. When ch sets the name and the unique
// index refuses it (a concurrent write took the name after
// CheckCategoryName), the 409 names the holder as CheckCategoryName's does.
// In a transaction (an Idempotency-Key request's) the write runs under a
// savepoint, so that the refused statement leaves the transaction usable
// for that lookup.
func clashGuarded(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ch storage.Changes, except uuid.UUID,
	write func(bun.IDB) error) error {
	v, _ := ch.Value("name")
	name, named := v.(string)
	if !named {
		return write(db)
	}
	var err error
	if database.IsTx(db) {
		err = database.RunInTx(ctx, db, func(_ context.Context, tx bun.Tx) error { return write(tx) })
	} else {
		err = write(db)
	}
	if !errs.Is(err, errs.DuplicateRecord) {
		return err
	}
	if again := CheckCategoryName(ctx, db, org, name, except); errs.Is(again, errs.DuplicateRecord) {
		return again
	}
	return err
}

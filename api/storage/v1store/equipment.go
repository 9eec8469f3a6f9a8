package v1store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Equipment is the v1 shape of an equipment record: manufacturer is the
// brand and category is the plain name of its category.
type Equipment struct {
	bun.BaseModel `bun:"table:equipment,alias:e"`

	ID             uuid.UUID `bun:"id,pk,type:uuid" json:"id"`
	Name           string    `bun:"name" json:"name"`
	Model          *string   `bun:"model" json:"model"`
	Manufacturer   *string   `bun:"brand" json:"manufacturer"`
	SerialNumber   *string   `bun:"serial_number" json:"serial_number"`
	Category       *string   `bun:"category,scanonly" json:"category"`
	Status         string    `bun:"status" json:"status"`
	CaseLengthIn   *float64  `bun:"case_length_in" json:"case_length_in"`
	CaseWidthIn    *float64  `bun:"case_width_in" json:"case_width_in"`
	CaseHeightIn   *float64  `bun:"case_height_in" json:"case_height_in"`
	WeightLbs      *float64  `bun:"weight_lbs" json:"weight_lbs"`
	CaseType       *string   `bun:"case_type" json:"case_type"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"organization_id"`
	CreatedAt      time.Time `bun:"created_at" json:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at" json:"updated_at"`
}

var _ bun.AfterScanRowHook = (*Equipment)(nil)

// AfterScanRow renders the timestamps in UTC.
func (e *Equipment) AfterScanRow(context.Context) error {
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return nil
}

// EquipmentView joins the category name (same organization) and orders
// alphabetically (alphabetical, docs/v1.md "Ordering"), then by id.
var EquipmentView = View[Equipment]{
	Kind: "equipment",
	shape: func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.ColumnExpr("?TableAlias.*").
			ColumnExpr("cat.name AS category").
			Join("LEFT JOIN equipment_categories AS cat ON cat.organization_id = ?TableAlias.organization_id AND cat.id = ?TableAlias.category_id")
	},
	order: "e.name " + alphabetical + " ASC, e.id ASC",
}

// PatchEquipment writes to org's equipment id, in one transaction, the
// columns changes returns (storage.Update: updated_at moves only when a
// value changed), and returns the record as read back with its category.
// With fromStored, changes is given the stored record, read under a row lock
// so that what it judged stays as read until the write (an unknown id is
// then not_found before changes runs); otherwise it is given nil.
func PatchEquipment(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, fromStored bool,
	changes func(stored *Equipment) (storage.Changes, error)) (*Equipment, error) {
	var out *Equipment
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var stored *Equipment
		if fromStored {
			var err error
			if stored, err = storage.Get[Equipment](ctx, tx, org, id, EquipmentView.Kind, storage.Locked); err != nil {
				return err
			}
		}
		ch, err := changes(stored)
		if err != nil {
			return err
		}
		if _, err := storage.Update[Equipment](ctx, tx, org, id, EquipmentView.Kind, ch); err != nil {
			return err
		}
		out, err = EquipmentView.Get(ctx, tx, org, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

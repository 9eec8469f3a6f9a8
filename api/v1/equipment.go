package v1

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
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

// equipmentView joins the category name (same organization) and orders
// alphabetically (alphabetical, docs/v1.md "Ordering"), then by id.
var equipmentView = view[Equipment]{
	kind: "equipment",
	shape: func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.ColumnExpr("?TableAlias.*").
			ColumnExpr("cat.name AS category").
			Join("LEFT JOIN equipment_categories AS cat ON cat.organization_id = ?TableAlias.organization_id AND cat.id = ?TableAlias.category_id")
	},
	order: "e.name " + alphabetical + " ASC, e.id ASC",
}

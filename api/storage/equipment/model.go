package equipment

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/money"
)

// Equipment is a rentable item type of the organization. Case dimensions are
// inches, weight pounds; daily_rate is exact money.
type Equipment struct {
	bun.BaseModel `bun:"table:equipment,alias:eq"`

	ID             uuid.UUID     `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID     `bun:"organization_id,type:uuid" json:"-"`
	Name           string        `bun:"name" json:"name"`
	Brand          *string       `bun:"brand" json:"brand"`
	Model          *string       `bun:"model" json:"model"`
	SerialNumber   *string       `bun:"serial_number" json:"serial_number"`
	CategoryID     *uuid.UUID    `bun:"category_id,type:uuid" json:"category_id"`
	StockQuantity  *int          `bun:"stock_quantity" json:"stock_quantity"`
	DailyRate      *money.Amount `bun:"daily_rate,type:numeric" json:"daily_rate"`
	CaseLengthIn   *float64      `bun:"case_length_in" json:"case_length_in"`
	CaseWidthIn    *float64      `bun:"case_width_in" json:"case_width_in"`
	CaseHeightIn   *float64      `bun:"case_height_in" json:"case_height_in"`
	WeightLbs      *float64      `bun:"weight_lbs" json:"weight_lbs"`
	CaseType       *string       `bun:"case_type" json:"case_type"`
	Status         string        `bun:"status" json:"status"`
	Demo           bool          `bun:"demo" json:"demo"`
	CreatedAt      time.Time     `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time     `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (e *Equipment) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} }

// Kind names the equipment resource in errors.
const Kind = "equipment"

// Equipment statuses (docs/decisions.md "Catalogue"; the v1 status, also returned by v2).
const (
	StatusAvailable   = "available"
	StatusOnJob       = "on_job"
	StatusMaintenance = "maintenance"
	StatusRetired     = "retired"
)

// Statuses lists every equipment status, the default first.
var Statuses = []string{StatusAvailable, StatusOnJob, StatusMaintenance, StatusRetired}

// CaseTypes lists the allowed case_type values.
var CaseTypes = []string{"road_case", "soft_case", "pelican"}

// CaseColumns are the case dimensions (inches) and weight (pounds): the
// truck load's figures, positive numbers or null, writable on v2 and v1.
var CaseColumns = []string{"case_length_in", "case_width_in", "case_height_in", "weight_lbs"}

// Category groups equipment (Audio, Lighting...) and colors it in planners.
type Category struct {
	bun.BaseModel `bun:"table:equipment_categories,alias:ec"`

	ID             uuid.UUID `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"-"`
	Name           string    `bun:"name" json:"name"`
	Color          *string   `bun:"color" json:"color"`
	Demo           bool      `bun:"demo" json:"demo"`
	CreatedAt      time.Time `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (c *Category) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: c.CreatedAt, ID: c.ID} }

// CategoryKind names the category resource in errors.
const CategoryKind = "equipment category"

// CategoryRef is the category object inlined by expand=category.
type CategoryRef struct {
	ID    uuid.UUID `json:"id"`
	Name  string    `json:"name"`
	Color *string   `json:"color"`
}

// WithCategory is equipment with its category inlined (null when it has none).
type WithCategory struct {
	*Equipment
	Category *CategoryRef `json:"category"`
}

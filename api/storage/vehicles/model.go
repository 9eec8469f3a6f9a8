package vehicles

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Vehicle is a fleet vehicle (truck, trailer, van) of the organization.
// Interior sizes are inches and payload pounds.
type Vehicle struct {
	bun.BaseModel `bun:"table:vehicles,alias:vh"`

	ID                   uuid.UUID `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID       uuid.UUID `bun:"organization_id,type:uuid" json:"-"`
	Name                 string    `bun:"name" json:"name"`
	Model                *string   `bun:"model" json:"model"`
	LicensePlate         *string   `bun:"license_plate" json:"license_plate"`
	VehicleType          *string   `bun:"vehicle_type" json:"vehicle_type"`
	Status               string    `bun:"status" json:"status"`
	InteriorLengthInches *int      `bun:"interior_length_inches" json:"interior_length_inches"`
	InteriorWidthInches  *int      `bun:"interior_width_inches" json:"interior_width_inches"`
	InteriorHeightInches *int      `bun:"interior_height_inches" json:"interior_height_inches"`
	MaxPayloadLbs        *int      `bun:"max_payload_lbs" json:"max_payload_lbs"`
	Demo                 bool      `bun:"demo" json:"demo"`
	CreatedAt            time.Time `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt            time.Time `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (v *Vehicle) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: v.CreatedAt, ID: v.ID} }

// Kind names the resource in errors.
const Kind = "vehicle"

// Vehicle statuses (docs/decisions.md "Catalogue"). Only available vehicles are
// listed by GET /vehicles or can be assigned to a reservation.
const (
	StatusAvailable   = "available"
	StatusInUse       = "in_use"
	StatusMaintenance = "maintenance"
	StatusRetired     = "retired"
)

// Statuses lists every vehicle status, the default first.
var Statuses = []string{StatusAvailable, StatusInUse, StatusMaintenance, StatusRetired}

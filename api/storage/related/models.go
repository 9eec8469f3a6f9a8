package related

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/tenancy"
)

// Event is the inline form of an event.
type Event struct {
	bun.BaseModel `bun:"table:events,alias:rev"`

	ID        uuid.UUID  `bun:"id,type:uuid" json:"id"`
	Name      string     `bun:"name" json:"name"`
	Status    string     `bun:"status" json:"status"`
	StartDate time.Time  `bun:"start_date" json:"start_date"`
	EndDate   time.Time  `bun:"end_date" json:"end_date"`
	Venue     string     `bun:"venue" json:"venue"`
	ClientID  *uuid.UUID `bun:"client_id,type:uuid" json:"client_id"`
}

// Client is the inline form of a client.
type Client struct {
	bun.BaseModel `bun:"table:clients,alias:rcl"`

	ID    uuid.UUID `bun:"id,type:uuid" json:"id"`
	Name  string    `bun:"name" json:"name"`
	Email *string   `bun:"email" json:"email"`
	Phone *string   `bun:"phone" json:"phone"`
}

// Category is the inline form of an equipment category.
type Category struct {
	bun.BaseModel `bun:"table:equipment_categories,alias:rca"`

	ID    uuid.UUID `bun:"id,type:uuid" json:"id"`
	Name  string    `bun:"name" json:"name"`
	Color *string   `bun:"color" json:"color"`
}

// Equipment is the inline form of an equipment record (PickListItem
// `equipment` in api/openapi/openapi.yaml): what a load planner needs to place a case. Category is set
// only when the category expansion was requested too.
type Equipment struct {
	bun.BaseModel `bun:"table:equipment,alias:req"`

	ID           uuid.UUID     `bun:"id,type:uuid" json:"id"`
	Name         string        `bun:"name" json:"name"`
	Brand        *string       `bun:"brand" json:"brand"`
	CategoryID   *uuid.UUID    `bun:"category_id,type:uuid" json:"category_id"`
	CaseLengthIn *float64      `bun:"case_length_in" json:"case_length_in"`
	CaseWidthIn  *float64      `bun:"case_width_in" json:"case_width_in"`
	CaseHeightIn *float64      `bun:"case_height_in" json:"case_height_in"`
	WeightLbs    *float64      `bun:"weight_lbs" json:"weight_lbs"`
	DailyRate    *money.Amount `bun:"daily_rate" json:"daily_rate"`
	Category     One[Category] `bun:"-" json:"category,omitzero"`
}

// Vehicle is the inline form of a fleet vehicle.
type Vehicle struct {
	bun.BaseModel `bun:"table:vehicles,alias:rve"`

	ID                   uuid.UUID `bun:"id,type:uuid" json:"id"`
	Name                 string    `bun:"name" json:"name"`
	Model                *string   `bun:"model" json:"model"`
	LicensePlate         *string   `bun:"license_plate" json:"license_plate"`
	VehicleType          *string   `bun:"vehicle_type" json:"vehicle_type"`
	Status               string    `bun:"status" json:"status"`
	InteriorLengthInches *int      `bun:"interior_length_inches" json:"interior_length_inches"`
	InteriorWidthInches  *int      `bun:"interior_width_inches" json:"interior_width_inches"`
	InteriorHeightInches *int      `bun:"interior_height_inches" json:"interior_height_inches"`
	MaxPayloadLbs        *int      `bun:"max_payload_lbs" json:"max_payload_lbs"`
}

// Events loads the events with ids in org, keyed by id.
func Events(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID) (map[uuid.UUID]*Event, error) {
	return load(ctx, db, org, ids, "event", func(e *Event) uuid.UUID { return e.ID })
}

// Clients loads the clients with ids in org, keyed by id.
func Clients(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID) (map[uuid.UUID]*Client, error) {
	return load(ctx, db, org, ids, "client", func(c *Client) uuid.UUID { return c.ID })
}

// Vehicles loads the vehicles with ids in org, keyed by id.
func Vehicles(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID) (map[uuid.UUID]*Vehicle, error) {
	return load(ctx, db, org, ids, "vehicle", func(v *Vehicle) uuid.UUID { return v.ID })
}

// EquipmentByID loads the equipment with ids in org, keyed by id. With
// withCategory each record's category is loaded too (one more query) and
// inlined.
func EquipmentByID(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, withCategory bool) (map[uuid.UUID]*Equipment, error) {
	eq, err := load(ctx, db, org, ids, "equipment", func(e *Equipment) uuid.UUID { return e.ID })
	if err != nil || !withCategory {
		return eq, err
	}
	return eq, inlineCategories(ctx, db, org, eq)
}

// EquipmentThrough loads the equipment of org that t links from ids (as
// storage.InThrough), keyed by id, with categories as EquipmentByID.
func EquipmentThrough(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, t storage.Through, ids []uuid.UUID, withCategory bool) (map[uuid.UUID]*Equipment, error) {
	rows, err := storage.InThrough[Equipment](ctx, db, org, t, ids, "equipment")
	if err != nil {
		return nil, err
	}
	eq := keyed(rows, func(e *Equipment) uuid.UUID { return e.ID })
	if !withCategory {
		return eq, nil
	}
	return eq, inlineCategories(ctx, db, org, eq)
}

// inlineCategories loads the categories of eq in one query and inlines them.
func inlineCategories(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, eq map[uuid.UUID]*Equipment) error {
	var catIDs []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, e := range eq {
		if e.CategoryID != nil && !seen[*e.CategoryID] {
			seen[*e.CategoryID] = true
			catIDs = append(catIDs, *e.CategoryID)
		}
	}
	cats, err := load(ctx, db, org, catIDs, "equipment category", func(c *Category) uuid.UUID { return c.ID })
	if err != nil {
		return err
	}
	p := NewPicker[Category](len(eq))
	for _, e := range eq {
		e.Category = p.Pick(cats, e.CategoryID)
	}
	return nil
}

package picklists

import (
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
)

// PickList is a warehouse manifest of equipment for an event.
type PickList struct {
	bun.BaseModel `bun:"table:pick_lists,alias:pl"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID  `bun:"organization_id,type:uuid" json:"-"`
	Name           string     `bun:"name" json:"name"`
	Status         string     `bun:"status" json:"status"`
	EventID        *uuid.UUID `bun:"event_id,type:uuid" json:"event_id"`
	QuoteID        *uuid.UUID `bun:"quote_id,type:uuid" json:"quote_id"`
	Archived       bool       `bun:"archived" json:"archived"`
	Notes          *string    `bun:"notes" json:"notes"`
	Demo           bool       `bun:"demo" json:"demo"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`

	// Items is always set on the detail endpoint, on the list only with
	// expand=items; nil leaves it out.
	Items *[]Item                    `bun:"-" json:"items,omitempty"`
	Event related.One[related.Event] `bun:"-" json:"event,omitzero"`
}

// PageKey implements storage.Row.
func (p *PickList) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: p.CreatedAt, ID: p.ID} }

// Item is one line of a pick list.
type Item struct {
	bun.BaseModel `bun:"table:pick_list_items,alias:pli"`

	ID                uuid.UUID  `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID    uuid.UUID  `bun:"organization_id,type:uuid" json:"-"`
	PickListID        uuid.UUID  `bun:"pick_list_id,type:uuid" json:"pick_list_id"`
	EquipmentID       *uuid.UUID `bun:"equipment_id,type:uuid" json:"equipment_id"`
	Quantity          int        `bun:"quantity" json:"quantity"`
	Stage             string     `bun:"stage" json:"stage"`
	Notes             *string    `bun:"notes" json:"notes"`
	CustomDescription *string    `bun:"custom_description" json:"custom_description"`
	IsContainer       *bool      `bun:"is_container" json:"is_container"`
	ContainerID       *uuid.UUID `bun:"container_id,type:uuid" json:"container_id"`
	IsPackage         *bool      `bun:"is_package" json:"is_package"`
	ParentItemID      *uuid.UUID `bun:"parent_item_id,type:uuid" json:"parent_item_id"`
	SerialNumbers     []string   `bun:"serial_numbers,array" json:"serial_numbers"`
	WarehouseID       *uuid.UUID `bun:"warehouse_id,type:uuid" json:"warehouse_id"`
	Demo              bool       `bun:"demo" json:"demo"`
	CreatedAt         time.Time  `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`

	Equipment related.One[related.Equipment] `bun:"-" json:"equipment,omitzero"`
}

// Kinds name the resources in errors.
const (
	Kind     = "pick list"
	ItemKind = "pick list item"
)

// Pick list statuses.
const (
	StatusDraft      = "draft"
	StatusInProgress = "in_progress"
	StatusPacked     = "packed"
	StatusComplete   = "complete"
)

// Statuses lists every pick list status in flow order.
var Statuses = []string{StatusDraft, StatusInProgress, StatusPacked, StatusComplete}

// Stages lists the item stages in order; an item may move forward, skipping
// stages, never backward.
var Stages = []string{"pending", "checked", "staged", "loaded", "installing", "installed"}

// Expansions are the relations ?expand accepts on pick lists.
var Expansions = []string{"event", "items", "equipment", "category"}

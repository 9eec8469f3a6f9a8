package picklists

import (
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage"
	"github.com/eventapi/eventapi/storage/picklists"
)

// ReadOnly lists the fields of a pick list that are never written.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at", "items", "event"}

var (
	nameRule  = rest.Rule{MaxLen: 200}
	notesRule = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}
	idRule    = rest.Rule{Nullable: true}
)

// listBody is a decoded pick list create or patch body.
type listBody struct {
	ch               storage.Changes // name, notes, archived, event_id, quote_id
	eventID, quoteID rest.Field[uuid.UUID]
	status           rest.Field[string]
}

// decodeList reads a pick list body. POST takes name (required), event_id,
// quote_id and notes, and always starts at draft; PATCH takes status, name,
// notes and archived.
func decodeList(in *rest.Input, create bool) listBody {
	var b listBody
	name := in.String("name", rest.Rule{Required: create, MaxLen: nameRule.MaxLen})
	b.ch.SetIf(name.Set, "name", name.Value)
	notes := in.String("notes", notesRule)
	b.ch.SetIf(notes.Set, "notes", notes.Ptr())
	if create {
		b.eventID = in.UUID("event_id", idRule)
		b.ch.SetIf(b.eventID.Set, "event_id", b.eventID.Ptr())
		b.quoteID = in.UUID("quote_id", idRule)
		b.ch.SetIf(b.quoteID.Set, "quote_id", b.quoteID.Ptr())
		if in.Has("status") || in.Has("archived") {
			in.Ignore("status", "archived")
			for _, f := range []string{"status", "archived"} {
				if in.Has(f) {
					in.Issue(f, "cannot be set on create: a pick list starts as draft, not archived; change it with PATCH")
				}
			}
		}
	} else {
		b.status = in.String("status", rest.Rule{OneOf: picklists.Statuses})
		archived := in.Bool("archived", rest.Rule{})
		b.ch.SetIf(archived.Set, "archived", archived.Value)
		for _, f := range []string{"event_id", "quote_id"} {
			if in.Has(f) {
				in.Ignore(f)
				in.Issue(f, "cannot be changed after the pick list is created")
			}
		}
	}
	in.ReadOnly(ReadOnly...)
	return b
}

// ItemReadOnly lists the fields of an item that are never written.
var ItemReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at", "equipment"}

// Item field limits.
const (
	maxItemQuantity   = 1_000_000
	maxSerialNumbers  = 500
	maxSerialNumber   = 100
	maxCustomDescText = 1000
)

// itemBody is a decoded item create or patch body: every field present.
type itemBody struct {
	pickListID                                          rest.Field[uuid.UUID]
	equipmentID, containerID, parentItemID, warehouseID rest.Field[uuid.UUID]
	customDescription, notes, stage                     rest.Field[string]
	quantity                                            rest.Field[int]
	isContainer, isPackage                              rest.Field[bool]
	serialNumbers                                       rest.Field[[]string]
}

// decodeItem reads an item body. POST requires pick_list_id and one of
// equipment_id or custom_description; PATCH may change everything but the
// pick list.
func decodeItem(in *rest.Input, create bool) itemBody {
	var b itemBody
	if create {
		b.pickListID = in.UUID("pick_list_id", rest.Rule{Required: true})
	} else if in.Has("pick_list_id") {
		in.Ignore("pick_list_id")
		in.Issue("pick_list_id", "cannot be changed; create the item on the other pick list")
	}
	b.equipmentID = in.UUID("equipment_id", idRule)
	b.customDescription = in.String("custom_description", rest.Rule{Nullable: true, MaxLen: maxCustomDescText})
	b.quantity = in.Int("quantity", rest.Rule{Min: rest.Bound(1), Max: rest.Bound(maxItemQuantity)})
	b.stage = in.String("stage", rest.Rule{OneOf: picklists.Stages})
	b.notes = in.String("notes", notesRule)
	b.isContainer = in.Bool("is_container", idRule)
	b.containerID = in.UUID("container_id", idRule)
	b.isPackage = in.Bool("is_package", idRule)
	b.parentItemID = in.UUID("parent_item_id", idRule)
	b.serialNumbers = in.StringList("serial_numbers", rest.Rule{Nullable: true, MaxLen: maxSerialNumber}, maxSerialNumbers)
	b.warehouseID = in.UUID("warehouse_id", idRule)
	in.ReadOnly(ItemReadOnly...)
	return b
}

// newItem builds the item a create body describes.
func (b itemBody) newItem() *picklists.Item {
	it := &picklists.Item{PickListID: b.pickListID.Value, Quantity: 1, Stage: picklists.Stages[0]}
	b.apply(it)
	return it
}

// apply writes every field present in the body onto it.
func (b itemBody) apply(it *picklists.Item) {
	setID := func(f rest.Field[uuid.UUID], dst **uuid.UUID) {
		if f.Set {
			*dst = f.Ptr()
		}
	}
	setID(b.equipmentID, &it.EquipmentID)
	setID(b.containerID, &it.ContainerID)
	setID(b.parentItemID, &it.ParentItemID)
	setID(b.warehouseID, &it.WarehouseID)
	if b.customDescription.Set {
		it.CustomDescription = b.customDescription.Ptr()
		if it.CustomDescription != nil && *it.CustomDescription == "" {
			it.CustomDescription = nil
		}
	}
	if b.notes.Set {
		it.Notes = b.notes.Ptr()
	}
	if b.stage.Set {
		it.Stage = b.stage.Value
	}
	if b.quantity.Set {
		it.Quantity = b.quantity.Value
	}
	if b.isContainer.Set {
		it.IsContainer = b.isContainer.Ptr()
	}
	if b.isPackage.Set {
		it.IsPackage = b.isPackage.Ptr()
	}
	if b.serialNumbers.Set {
		it.SerialNumbers = nil
		if !b.serialNumbers.Null {
			it.SerialNumbers = b.serialNumbers.Value
		}
	}
}

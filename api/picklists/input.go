package picklists

import (
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/picklists"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
)

// ReadOnly lists the fields of a pick list that are never written, its
// expansions (event, items) among them.
var ReadOnly = rest.ReadOnlyFields(Expansions)

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// notes and custom_description are free text, the other strings one line.
var (
	createRules, updateRules = openapi.Rules("PickListCreate").MultiLine("notes"),
		openapi.Rules("PickListUpdate").MultiLine("notes")
	createItemRules, updateItemRules = openapi.Rules("PickListItemCreate").MultiLine("custom_description", "notes"),
		openapi.Rules("PickListItemUpdate").MultiLine("custom_description", "notes")
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
	rules := updateRules
	if create {
		rules = createRules
	}
	name := in.String("name", rules.Get("name"))
	b.ch.SetIf(name.Set, "name", name.Value)
	notes := in.String("notes", rules.Get("notes"))
	b.ch.SetIf(notes.Set, "notes", notes.Ptr())
	if create {
		b.eventID = in.UUID("event_id", rules.Get("event_id"))
		b.ch.SetIf(b.eventID.Set, "event_id", b.eventID.Ptr())
		b.quoteID = in.UUID("quote_id", rules.Get("quote_id"))
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
		b.status = in.String("status", rules.Get("status"))
		archived := in.Bool("archived", rules.Get("archived"))
		b.ch.SetIf(archived.Set, "archived", archived.Value)
		// Fixed when the pick list is created: a PATCH ignores them.
		in.ReadOnly("event_id", "quote_id")
	}
	in.ReadOnly(ReadOnly...)
	return b
}

// ItemReadOnly lists the fields of an item that are never written, its
// expanded equipment among them.
var ItemReadOnly = rest.ReadOnlyFields(rest.ExpansionsWithin(Expansions, "items"))

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
	rules := updateItemRules
	if create {
		rules = createItemRules
		b.pickListID = in.UUID("pick_list_id", rules.Get("pick_list_id"))
	} else {
		// An item stays on its pick list: a PATCH ignores pick_list_id.
		in.ReadOnly("pick_list_id")
	}
	b.equipmentID = in.UUID("equipment_id", rules.Get("equipment_id"))
	b.customDescription = in.String("custom_description", rules.Get("custom_description"))
	b.quantity = in.Int("quantity", rules.Get("quantity"))
	b.stage = in.String("stage", rules.Get("stage"))
	b.notes = in.String("notes", rules.Get("notes"))
	b.isContainer = in.Bool("is_container", rules.Get("is_container"))
	b.containerID = in.UUID("container_id", rules.Get("container_id"))
	b.isPackage = in.Bool("is_package", rules.Get("is_package"))
	b.parentItemID = in.UUID("parent_item_id", rules.Get("parent_item_id"))
	b.serialNumbers = in.StringList("serial_numbers", rules.Get("serial_numbers"))
	b.warehouseID = in.UUID("warehouse_id", rules.Get("warehouse_id"))
	in.ReadOnly(ItemReadOnly...)
	// A new item must name what to pick. Said here too, not only when it
	// is stored, so that it is reported with the body's other bad fields;
	// a PATCH's item is judged with its stored fields (checkItem).
	if create && !in.HasIssue("equipment_id") && !in.HasIssue("custom_description") &&
		b.equipmentID.Ptr() == nil && b.newItem().CustomDescription == nil {
		in.Issue("equipment_id", picklists.NothingToPickIssue)
	}
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

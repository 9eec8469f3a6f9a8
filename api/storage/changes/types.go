package changes

import "slices"

// The object types of the feed, as the record_change trigger names them.
const (
	Event                = "event"
	Client               = "client"
	CrewMember           = "crew_member"
	Equipment            = "equipment"
	EquipmentCategory    = "equipment_category"
	Vehicle              = "vehicle"
	EquipmentReservation = "equipment_reservation"
	Quote                = "quote"
	Invoice              = "invoice"
	PickList             = "pick_list"
	PickListItem         = "pick_list_item"
)

// ObjectTypes lists every object type of the feed.
var ObjectTypes = []string{
	Event, Client, CrewMember, Equipment, EquipmentCategory, Vehicle,
	EquipmentReservation, Quote, Invoice, PickList, PickListItem,
}

// Types lists every change type: <object>.created|updated|deleted for each
// object type, and quote.approved.
var Types = func() []string {
	var out []string
	for _, o := range ObjectTypes {
		out = append(out, o+".created", o+".updated", o+".deleted")
	}
	return append(out, QuoteApproved)
}()

// QuoteApproved is the type of a quote's move into approved (or its
// creation as approved), in place of quote.created or quote.updated.
const QuoteApproved = "quote.approved"

// ValidType reports whether t is a change type.
func ValidType(t string) bool { return slices.Contains(Types, t) }

package tenancy

// The scopes any one of which reads an object type: what its GET routes
// require, and what every expansion, answer or feed entry that inlines a
// record of that type requires too, so that no read widens a key's access
// (docs/decisions.md, "`?expand=` never widens a key's access"). Each is
// stated here once: the resource packages cannot all import each other
// (equipment imports reservations for its stock warnings), and literal
// copies in each expansion would drift.
var (
	EventReaders       = []Scope{EventsRead, JobsRead}
	ClientReaders      = []Scope{ClientsRead}
	CrewMemberReaders  = []Scope{CrewMembersRead}
	EquipmentReaders   = []Scope{EquipmentRead} // equipment categories too
	VehicleReaders     = []Scope{EquipmentReservationsRead}
	ReservationReaders = []Scope{EquipmentReservationsRead}
	QuoteReaders       = []Scope{QuotesRead}
	InvoiceReaders     = []Scope{InvoicesRead}
	// PickListReaders read pick lists and their items: a pick list is
	// the warehouse's view of an event.
	PickListReaders = []Scope{PickListsRead, EventsRead, JobsRead}
)

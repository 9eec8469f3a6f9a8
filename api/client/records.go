package client

import (
	"encoding/json"
	"fmt"
)

// Recorded is what carries a record of one object type as GET renders it: a
// Change of the feed or a verified WebhookMessage. RecordOf decodes it.
type Recorded interface {
	record() (ChangeObjectType, []byte, error)
}

func (c Change) record() (ChangeObjectType, []byte, error) {
	b, err := json.Marshal(c.Data)
	return c.ObjectType, b, err
}

func (m WebhookMessage) record() (ChangeObjectType, []byte, error) {
	return m.ObjectType, m.Data, nil
}

// RecordOf decodes the record r carries into T, the SDK's type of r's object
// type: ClientRecord for "client", CrewMember, Equipment, Category for
// "equipment_category", Reservation for "equipment_reservation", Event,
// Invoice, PickList, PickListItem, Quote or Vehicle. A T of another object
// type, or a type that is none of these, is an error rather than a record of
// zero values, so a switch on ObjectType that picked the wrong case fails
// loudly:
//
//	switch ch.ObjectType {
//	case client.ChangeObjectTypeEquipmentReservation:
//		res, err := client.RecordOf[client.Reservation](ch)
//		…
//	}
func RecordOf[T any](r Recorded) (T, error) {
	var v T
	objectType, data, err := r.record()
	if err != nil {
		return v, err
	}
	want, ok := objectTypeOf(&v)
	switch {
	case !ok:
		return v, fmt.Errorf("eventapi: %T is not the type of a record the change feed or a webhook carries", v)
	case objectType == "":
		return v, fmt.Errorf("eventapi: the message carries no record (its type names no object type, as a ping's does), so it does not decode into %T", v)
	case want != objectType:
		return v, fmt.Errorf("eventapi: %s records do not decode into %T (the type of %s records)", objectType, v, want)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("eventapi: decode a %s record: %w", objectType, err)
	}
	return v, nil
}

// objectTypeOf names the object type whose records decode into *v.
func objectTypeOf(v any) (ChangeObjectType, bool) {
	switch v.(type) {
	case *ClientRecord:
		return ChangeObjectTypeClient, true
	case *CrewMember:
		return ChangeObjectTypeCrewMember, true
	case *Equipment:
		return ChangeObjectTypeEquipment, true
	case *Category:
		return ChangeObjectTypeEquipmentCategory, true
	case *Reservation:
		return ChangeObjectTypeEquipmentReservation, true
	case *Event:
		return ChangeObjectTypeEvent, true
	case *Invoice:
		return ChangeObjectTypeInvoice, true
	case *PickList:
		return ChangeObjectTypePickList, true
	case *PickListItem:
		return ChangeObjectTypePickListItem, true
	case *Quote:
		return ChangeObjectTypeQuote, true
	case *Vehicle:
		return ChangeObjectTypeVehicle, true
	}
	return "", false
}

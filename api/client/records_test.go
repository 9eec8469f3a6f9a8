package client_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/client"
)

// TestRecordOf: every object type decodes into its own type and into no
// other, and a type that is no record is refused rather than filled with
// zero values.
func TestRecordOf(t *testing.T) {
	id := uuid.New()
	change := func(objectType client.ChangeObjectType) client.Change {
		return client.Change{ObjectType: objectType, Data: map[string]any{"id": id.String(), "name": "Truck 7"}}
	}
	decoders := []struct {
		objectType client.ChangeObjectType
		decode     func(client.Recorded) error
	}{
		{client.ChangeObjectTypeClient, decodeAs[client.ClientRecord]},
		{client.ChangeObjectTypeCrewMember, decodeAs[client.CrewMember]},
		{client.ChangeObjectTypeEquipment, decodeAs[client.Equipment]},
		{client.ChangeObjectTypeEquipmentCategory, decodeAs[client.Category]},
		{client.ChangeObjectTypeEquipmentReservation, decodeAs[client.Reservation]},
		{client.ChangeObjectTypeEvent, decodeAs[client.Event]},
		{client.ChangeObjectTypeInvoice, decodeAs[client.Invoice]},
		{client.ChangeObjectTypePickList, decodeAs[client.PickList]},
		{client.ChangeObjectTypePickListItem, decodeAs[client.PickListItem]},
		{client.ChangeObjectTypeQuote, decodeAs[client.Quote]},
		{client.ChangeObjectTypeVehicle, decodeAs[client.Vehicle]},
	}
	for _, d := range decoders {
		for _, other := range decoders {
			err := d.decode(change(other.objectType))
			switch {
			case other.objectType == d.objectType && err != nil:
				t.Errorf("a %s change into its own type: %v", d.objectType, err)
			case other.objectType != d.objectType && err == nil:
				t.Errorf("a %s change decoded into the type of %s", other.objectType, d.objectType)
			}
		}
	}
	v, err := client.RecordOf[client.Vehicle](change(client.ChangeObjectTypeVehicle))
	if err != nil || v.Id != id || v.Name != "Truck 7" {
		t.Errorf("vehicle %+v, %v", v, err)
	}
	if _, err := client.RecordOf[map[string]any](change(client.ChangeObjectTypeVehicle)); err == nil ||
		!strings.Contains(err.Error(), "is not the type of a record") {
		t.Errorf("a map: %v", err)
	}
	// A message whose type has no dot (a ping) carries no record: the
	// error says so, rather than naming an empty object type.
	if _, err := client.RecordOf[client.Vehicle](client.WebhookMessage{Type: "ping"}); err == nil ||
		!strings.Contains(err.Error(), "carries no record") {
		t.Errorf("a ping: %v", err)
	}
	bad := client.Change{ObjectType: client.ChangeObjectTypeVehicle, Data: map[string]any{"name": 7}}
	if _, err := client.RecordOf[client.Vehicle](bad); err == nil {
		t.Error("a vehicle whose name is a number decoded")
	}
}

func decodeAs[T any](r client.Recorded) error {
	_, err := client.RecordOf[T](r)
	return err
}

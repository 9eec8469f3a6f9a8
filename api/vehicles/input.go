package vehicles

import (
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage"
	"github.com/eventapi/eventapi/storage/vehicles"
)

// ReadOnly lists the fields a vehicle may never write.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

// sizeColumns are the interior sizes (inches) and payload (pounds): positive
// integers or null.
var sizeColumns = []string{"interior_length_inches", "interior_width_inches", "interior_height_inches", "max_payload_lbs"}

var (
	shortRule = rest.Rule{Nullable: true, MaxLen: 100}
	sizeRule  = rest.Rule{Nullable: true, Min: rest.Bound(1)}
)

// decodeFields reads every writable field into column assignments. The same
// decoder serves POST (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) storage.Changes {
	var ch storage.Changes
	name := in.String("name", rest.Rule{Required: create, MinLen: 1, MaxLen: 200})
	ch.SetIf(name.Set, "name", name.Value)
	for _, col := range []string{"model", "license_plate", "vehicle_type"} {
		v := in.String(col, shortRule)
		ch.SetIf(v.Set, col, v.Ptr())
	}
	status := in.String("status", rest.Rule{OneOf: vehicles.Statuses})
	ch.SetIf(status.Set, "status", status.Value)
	for _, col := range sizeColumns {
		v := in.Int(col, sizeRule)
		ch.SetIf(v.Set, col, v.Ptr())
	}
	in.ReadOnly(ReadOnly...)
	return ch
}

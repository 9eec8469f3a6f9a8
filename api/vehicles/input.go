package vehicles

import (
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
)

// ReadOnly lists the fields a vehicle may never write.
var ReadOnly = rest.ReadOnlyFields(nil)

// sizeColumns are the interior sizes (inches) and payload (pounds): positive
// integers or null.
var sizeColumns = []string{"interior_length_inches", "interior_width_inches", "interior_height_inches", "max_payload_lbs"}

// The field rules of POST and PATCH bodies, from the OpenAPI document.
var createRules, updateRules = openapi.Rules("VehicleCreate"), openapi.Rules("VehicleUpdate")

// decodeFields reads every writable field into column assignments. The same
// decoder serves POST (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) storage.Changes {
	var ch storage.Changes
	rules := updateRules
	if create {
		rules = createRules
	}
	name := in.String("name", rules.Get("name"))
	ch.SetIf(name.Set, "name", name.Value)
	for _, col := range []string{"model", "license_plate", "vehicle_type"} {
		v := in.String(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Ptr())
	}
	status := in.String("status", rules.Get("status"))
	ch.SetIf(status.Set, "status", status.Value)
	for _, col := range sizeColumns {
		v := in.Int(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Ptr())
	}
	in.ReadOnly(ReadOnly...)
	return ch
}

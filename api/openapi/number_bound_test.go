package openapi_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
)

// TestNumberBoundIsTheInputs: the case sizes and weight are refused above
// rest.MaxNumber whatever their rule says (Input.Number); both documents
// state that bound as the fields' maximum, v2 on the equipment create
// schema, v1 on its PATCH dimension.
func TestNumberBoundIsTheInputs(t *testing.T) {
	type schemas struct {
		Components struct {
			Schemas map[string]struct {
				Maximum    *float64 `json:"maximum"`
				Properties map[string]struct {
					Maximum *float64 `json:"maximum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	read := func(raw []byte, err error) schemas {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var d schemas
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	v2 := read(openapi.JSON())
	for _, field := range []string{"case_length_in", "case_width_in", "case_height_in", "weight_lbs"} {
		if m := v2.Components.Schemas["EquipmentCreate"].Properties[field].Maximum; m == nil || *m != rest.MaxNumber {
			t.Errorf("v2 EquipmentCreate.%s maximum %s, want %v", field, maximum(m), rest.MaxNumber)
		}
	}
	v1 := read(openapi.V1JSON(time.Time{}))
	if m := v1.Components.Schemas["PatchDimension"].Maximum; m == nil || *m != rest.MaxNumber {
		t.Errorf("v1 PatchDimension maximum %s, want %v", maximum(m), rest.MaxNumber)
	}
}

// maximum writes a schema's maximum, or none.
func maximum(m *float64) string {
	if m == nil {
		return "none"
	}
	return strconv.FormatFloat(*m, 'g', -1, 64)
}

package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/openapi"
)

// TestRulesComeFromTheDocument: the limits decoders enforce are the
// document's (truck_position's 120 is stated once, in openapi.yaml).
func TestRulesComeFromTheDocument(t *testing.T) {
	create, update := openapi.Rules("ReservationCreate"), openapi.Rules("ReservationUpdate")
	for _, rules := range []map[string]int{{"create": create.Get("truck_position").MaxLen}, {"update": update.Get("truck_position").MaxLen}} {
		for name, n := range rules {
			if n != 120 {
				t.Errorf("%s truck_position max = %d, want the document's 120", name, n)
			}
		}
	}
	if !create.Get("equipment_id").Required || update.Get("equipment_id").Required {
		t.Errorf("equipment_id: required on create only")
	}
	q := create.Get("quantity")
	if q.Min == nil || *q.Min != 1 || q.Max == nil || *q.Max != 1_000_000 {
		t.Errorf("quantity bounds = %v..%v", q.Min, q.Max)
	}
	if o := create.Get("overbook_cost_ownership"); !o.Nullable || len(o.OneOf) == 0 {
		t.Errorf("overbook_cost_ownership: nullable enum through anyOf, got %+v", o)
	}
	if s := openapi.Rules("PickListItemCreate").Get("serial_numbers"); s.MaxItems != 500 || s.MaxLen != 100 {
		t.Errorf("serial_numbers: %+v", s)
	}
	if p := openapi.Rules("EquipmentCreate").Get("weight_lbs"); !p.Positive {
		t.Errorf("weight_lbs: exclusiveMinimum 0 is positive, got %+v", p)
	}
}

// TestEveryRequestStringIsBounded: every string a request body carries has
// a maxLength, an enum, a pattern or a format in the document, so no limit is left to
// a default in the code; and every request schema converts to rules.
func TestEveryRequestStringIsBounded(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.MustJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, s := range doc.Components.Schemas {
		if !strings.HasSuffix(name, "Create") && !strings.HasSuffix(name, "Update") && name != "LineItemInput" {
			continue
		}
		n++
		openapi.Rules(name) // panics on a rule it cannot express
		for field, raw := range s.Properties {
			var p struct {
				Type      any             `json:"type"`
				MaxLength *int            `json:"maxLength"`
				Enum      []any           `json:"enum"`
				Format    string          `json:"format"`
				Pattern   string          `json:"pattern"`
				Items     json.RawMessage `json:"items"`
			}
			_ = json.Unmarshal(raw, &p)
			isString := p.Type == "string"
			if list, ok := p.Type.([]any); ok && len(list) > 0 && list[0] == "string" {
				isString = true
			}
			if isString && p.MaxLength == nil && p.Enum == nil && p.Format == "" && p.Pattern == "" {
				t.Errorf("%s.%s is a string without maxLength, enum, pattern or format", name, field)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d request schemas found", n)
	}
}

package v1

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestDecodePatchNulls: a null is a no-op for a writable field stored null
// and the field's bad value otherwise (docs/v1.md, "PATCH /equipment/{id}"),
// so a record read with GET can be sent back whatever it holds.
func TestDecodePatchNulls(t *testing.T) {
	allNull := storedNulls{"case_length_in": true, "case_width_in": true, "case_height_in": true,
		"weight_lbs": true, "case_type": true}
	for _, tt := range []struct {
		name  string
		body  string
		nulls storedNulls
		// set are the columns written; bad the fields named in the 400
		// (nil: no error).
		set, bad []string
	}{
		{"null over a stored null is kept", `{"weight_lbs": null}`, storedNulls{"weight_lbs": true}, nil, nil},
		{"null case_type over a stored null", `{"case_type": null}`, storedNulls{"case_type": true}, nil, nil},
		{"the record read back, one dimension changed",
			`{"id": "x", "name": "Truss", "case_length_in": 12, "case_width_in": null, "case_height_in": null,
			"weight_lbs": 44, "case_type": null, "updated_at": "2026-01-01T00:00:00Z"}`,
			storedNulls{"case_width_in": true, "case_height_in": true, "case_type": true},
			[]string{"case_length_in", "weight_lbs"}, nil},
		{"every field null, every field stored null", `{"case_length_in": null, "case_width_in": null,
			"case_height_in": null, "weight_lbs": null, "case_type": null}`, allNull, nil, nil},
		{"null over a stored value", `{"weight_lbs": null}`, storedNulls{"case_type": true}, nil, []string{"weight_lbs"}},
		{"null case_type over a stored value", `{"case_type": null}`, nil, nil, []string{"case_type"}},
		{"both kinds of null: only the stored value's field named", `{"weight_lbs": null, "case_type": null}`,
			storedNulls{"case_type": true}, nil, []string{"weight_lbs"}},
		{"a stored null does not excuse a bad value", `{"weight_lbs": 0}`, allNull, nil, []string{"weight_lbs"}},
		{"a kept null beside a bad value", `{"weight_lbs": null, "case_type": "box"}`, allNull, nil, []string{"case_type"}},
		{"no null, nothing stored null", `{"weight_lbs": 3}`, nil, []string{"weight_lbs"}, nil},
		{"still at least one writable field", `{"name": "x"}`, allNull, nil, []string{"body"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := rest.ParseObject([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			ch, err := decodePatch(in, tt.nulls)
			if tt.bad == nil {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
			} else {
				e := errs.As(err)
				d, _ := e.Details.(errs.ValidationDetails)
				var named []string
				for _, f := range d.Fields {
					named = append(named, f.Field)
				}
				if e.Code != errs.Validation || strings.Join(named, ",") != strings.Join(tt.bad, ",") {
					t.Fatalf("error %v naming %v, want a validation_error (400 BAD_REQUEST on v1) naming %v", err, named, tt.bad)
				}
				return
			}
			var set []string
			for _, f := range writableFields {
				if _, ok := ch.Value(f); ok {
					set = append(set, f)
				}
			}
			if strings.Join(set, ",") != strings.Join(tt.set, ",") {
				t.Errorf("writes %v, want %v", set, tt.set)
			}
		})
	}
}

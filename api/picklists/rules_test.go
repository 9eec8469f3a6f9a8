package picklists

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestItemMaximumMatchesTheDocument: a pick list made from a quote sums the
// lines of each equipment record into one item, which must pass the item
// decoder on its way back (GET → PATCH). The storage layer states the item
// maximum as picklists.MaxItemQuantity, since it cannot read the OpenAPI
// document: it must be the document's, and cover the largest sum a quote
// allows (its most lines, each of its largest quantity).
func TestItemMaximumMatchesTheDocument(t *testing.T) {
	for name, rules := range map[string]rest.Rules{"PickListItemCreate": createItemRules, "PickListItemUpdate": updateItemRules} {
		r := rules.Get("quantity")
		if r.Max == nil {
			t.Errorf("%s quantity has no maximum", name)
		} else if *r.Max != picklists.MaxItemQuantity {
			t.Errorf("%s quantity maximum %v, storage/picklists.MaxItemQuantity %d", name, *r.Max, picklists.MaxItemQuantity)
		}
	}
	line := openapi.Rules("LineItemInput").Get("quantity")
	if line.Max == nil {
		t.Fatal("LineItemInput quantity has no maximum")
	}
	if largest := int(*line.Max) * openapi.MaxItems("LineItemsInput"); largest > picklists.MaxItemQuantity {
		t.Errorf("a quote may sum %d of one equipment record, above picklists.MaxItemQuantity %d", largest, picklists.MaxItemQuantity)
	}
}

// TestDecodeItemNamesNothingToPickWithOtherIssues: a new item that names
// neither equipment nor a custom description is told so beside the body's
// other bad fields; a PATCH leaves the rule to the stored item.
func TestDecodeItemNamesNothingToPickWithOtherIssues(t *testing.T) {
	const list = `"pick_list_id":"0b0e8b4a-3a8e-4f7c-9d1e-2f3a4b5c6d7e"`
	for _, tc := range []struct {
		name   string
		body   string
		create bool
		want   []string // fields named, in order
	}{
		{"nothing to pick and a bad quantity", `{` + list + `,"quantity":0}`, true, []string{"quantity", "equipment_id"}},
		{"an empty description", `{` + list + `,"custom_description":""}`, true, []string{"equipment_id"}},
		{"a bad equipment_id is named alone", `{` + list + `,"equipment_id":"x"}`, true, []string{"equipment_id"}},
		{"a description", `{` + list + `,"custom_description":"Cable"}`, true, nil},
		{"equipment", `{` + list + `,"equipment_id":"1c1f9c5b-4b9f-4a8d-8e2f-3a4b5c6d7e8f"}`, true, nil},
		{"a patch", `{"quantity":2}`, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := rest.ParseObject([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			decodeItem(in, tc.create)
			var got []string
			for _, is := range errs.Issues(in.Err()) {
				got = append(got, is.Field)
				if is.Field == "equipment_id" && tc.name != "a bad equipment_id is named alone" && is.Issue != picklists.NothingToPickIssue {
					t.Errorf("equipment_id: %q", is.Issue)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("fields %v, want %v", got, tc.want)
			}
		})
	}
}

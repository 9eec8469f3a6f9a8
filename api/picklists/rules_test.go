package picklists

import (
	"testing"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/picklists"
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

package picklists

import (
	"testing"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/picklists"
)

// TestItemMaximumMatchesTheDocument: the storage layer splits the items of a
// pick list made from a quote at picklists.MaxItemQuantity, so that every
// item passes the item decoder on its way back (GET → PATCH). It cannot read
// the OpenAPI document; the maximum the decoder reads from it must be that
// value.
func TestItemMaximumMatchesTheDocument(t *testing.T) {
	for name, rules := range map[string]rest.Rules{"PickListItemCreate": createItemRules, "PickListItemUpdate": updateItemRules} {
		r := rules.Get("quantity")
		if r.Max == nil {
			t.Errorf("%s quantity has no maximum", name)
		} else if *r.Max != picklists.MaxItemQuantity {
			t.Errorf("%s quantity maximum %v, storage/picklists.MaxItemQuantity %d", name, *r.Max, picklists.MaxItemQuantity)
		}
	}
}

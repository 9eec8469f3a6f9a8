package quotes

import (
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
)

// ReadOnly lists the fields a quote may never be written with: its
// total_amount and its expansions among them.
var ReadOnly = rest.ReadOnlyFields(documents.Expansions, "total_amount")

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// notes and internal_notes are free text, the other strings one line.
var createRules, updateRules = openapi.Rules("QuoteCreate").MultiLine("notes", "internal_notes"),
	openapi.Rules("QuoteUpdate").MultiLine("notes", "internal_notes")

// decodeFields reads every writable field into a docstore.Write. The same decoder
// serves POST (create: title required) and PATCH.
func decodeFields(in *rest.Input, create bool) docstore.Write {
	rules := updateRules
	if create {
		rules = createRules
	}
	return documents.DecodeWrite(in, documents.Body{Rules: rules, NumberField: "quote_number", ReadOnly: ReadOnly, Own: decodeOwn})
}

// decodeOwn reads the fields only a quote has.
func decodeOwn(in *rest.Input, rules rest.Rules, w *docstore.Write) {
	for _, f := range []string{"notes", "internal_notes"} {
		v := in.String(f, rules.Get(f))
		w.Changes.SetIf(v.Set, f, v.Ptr())
	}
	qt := in.String("quote_type", rules.Get("quote_type"))
	w.Changes.SetIf(qt.Set, "quote_type", qt.Value)
}

package documents

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/platform/errs"
)

// The rules of a line item's fields and the most lines a body may carry,
// from the OpenAPI document (LineItemInput, LineItemsInput); a line's
// description is free text.
var (
	lineRules = openapi.Rules("LineItemInput").MultiLine("description")
	maxLines  = openapi.MaxItems("LineItemsInput")
)

// DecodeLines reads the line_items array: each element is an object
// {equipment_id?, description?, quantity, unit_price}, and a line needs an
// equipment_id or a description. Problems are recorded on in, named
// line_items[i].field.
func DecodeLines(in *rest.Input) rest.Field[[]documents.Line] {
	raw, ok := in.Raw(documents.Field)
	if !ok {
		return rest.Field[[]documents.Line]{}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || elems == nil {
		in.Issue(documents.Field, "must be an array of line item objects")
		return rest.Field[[]documents.Line]{}
	}
	if len(elems) > maxLines {
		in.Issue(documents.Field, fmt.Sprintf("must have at most %d items", maxLines))
		return rest.Field[[]documents.Line]{}
	}
	lines := make([]documents.Line, 0, len(elems))
	bad := false
	for i, elem := range elems {
		prefix := documents.Field + "[" + strconv.Itoa(i) + "]"
		l, issues, ignored := decodeLine(elem, in.IsLenient())
		for _, f := range ignored {
			in.NoteIgnored(prefix + "." + f)
		}
		for _, is := range issues {
			if is.Field != "" {
				is.Field = prefix + "." + is.Field
			} else {
				is.Field = prefix
			}
			in.Issue(is.Field, is.Issue)
		}
		bad = bad || len(issues) > 0
		lines = append(lines, l)
	}
	if bad {
		return rest.Field[[]documents.Line]{}
	}
	// The document's total is a rule of the body alone, so it is named
	// with the other bad fields rather than after them.
	if _, err := documents.Total(lines); err != nil {
		for _, is := range errs.Issues(err) {
			in.Issue(is.Field, is.Issue)
		}
		return rest.Field[[]documents.Line]{}
	}
	return rest.Field[[]documents.Line]{Set: true, Value: lines}
}

// decodeLine reads one line item; lenient (PATCH) ignores its read-only and
// unknown fields and returns their names.
func decodeLine(raw json.RawMessage, lenient bool) (documents.Line, []errs.FieldIssue, []string) {
	li, err := rest.ParseObject(raw)
	if err != nil {
		return documents.Line{}, []errs.FieldIssue{{Field: "", Issue: "must be an object"}}, nil
	}
	li.Lenient(lenient)
	eq := li.UUID("equipment_id", lineRules.Get("equipment_id"))
	desc := li.String("description", lineRules.Get("description"))
	qty := li.Int("quantity", lineRules.Get("quantity"))
	price := li.Money("unit_price", lineRules.Get("unit_price"))
	li.ReadOnly("id", "line_total")
	// Every bad field at once: the description is missing unless one of
	// the two fields is bad itself (an equipment_id that is not a uuid
	// does not make the description required).
	if !li.HasIssue("equipment_id") && !li.HasIssue("description") && eq.Ptr() == nil && desc.Value == "" {
		li.Issue("description", "is required when equipment_id is not set")
	}
	l := documents.Line{EquipmentID: eq.Ptr(), Description: desc.Value, Quantity: qty.Value, UnitPrice: price.Value}
	if !li.HasIssues() {
		l.LineTotal = l.UnitPrice.Mul(l.Quantity)
		if l.LineTotal > documents.MaxTotal {
			li.Issue("unit_price", documents.LineTotalIssue)
		}
	}
	if err := li.Err(); err != nil {
		return documents.Line{}, errs.Issues(err), li.Ignored()
	}
	return l, nil, li.Ignored()
}

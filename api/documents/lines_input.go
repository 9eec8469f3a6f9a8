package documents

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/storage/documents"
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
	if len(elems) > documents.MaxLines {
		in.Issue(documents.Field, fmt.Sprintf("must have at most %d items", documents.MaxLines))
		return rest.Field[[]documents.Line]{}
	}
	lines := make([]documents.Line, 0, len(elems))
	bad := false
	for i, elem := range elems {
		prefix := documents.Field + "[" + strconv.Itoa(i) + "]"
		l, issues := decodeLine(elem)
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
	return rest.Field[[]documents.Line]{Set: true, Value: lines}
}

func decodeLine(raw json.RawMessage) (documents.Line, []errs.FieldIssue) {
	li, err := rest.ParseObject(raw)
	if err != nil {
		return documents.Line{}, []errs.FieldIssue{{Field: "", Issue: "must be an object"}}
	}
	eq := li.UUID("equipment_id", rest.Rule{Nullable: true})
	desc := li.String("description", rest.Rule{Nullable: true, MaxLen: documents.MaxDescription})
	qty := li.Int("quantity", rest.Rule{Required: true, Min: rest.Bound(1), Max: rest.Bound(documents.MaxQuantity)})
	price := li.Money("unit_price", rest.Rule{Required: true})
	li.ReadOnly("id", "line_total")
	if !li.HasIssues() && eq.Ptr() == nil && desc.Value == "" {
		li.Issue("description", "is required when equipment_id is not set")
	}
	l := documents.Line{EquipmentID: eq.Ptr(), Description: desc.Value, Quantity: qty.Value, UnitPrice: price.Value}
	if !li.HasIssues() {
		l.LineTotal = l.UnitPrice.Mul(l.Quantity)
		if l.LineTotal > documents.MaxTotal {
			li.Issue("unit_price", "quantity × unit_price must be at most 99999999999999.99")
		}
	}
	if err := li.Err(); err != nil {
		return documents.Line{}, errs.As(err).Details.(errs.ValidationDetails).Fields
	}
	return l, nil
}

package equipment

import (
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/related"
)

// ReadOnly lists the fields equipment may never write, its expanded
// category among them; CategoryReadOnly those of a category.
var (
	ReadOnly         = rest.ReadOnlyFields(expansions)
	CategoryReadOnly = rest.ReadOnlyFields(nil)
)

// caseColumns are the case dimensions and weight: positive numbers or null.
var caseColumns = equipment.CaseColumns

// The field rules of POST and PATCH bodies, from the OpenAPI document.
var (
	createRules, updateRules                 = openapi.Rules("EquipmentCreate"), openapi.Rules("EquipmentUpdate")
	createCategoryRules, updateCategoryRules = openapi.Rules("CategoryCreate"), openapi.Rules("CategoryUpdate")
)

// write is a decoded body: column assignments and the references to check
// against the organization before writing.
type write struct {
	ch   storage.Changes
	refs []related.Ref
	// name is the new category name, when the body sets one.
	name *string
	// stock is the new stock_quantity, when the body sets a number (null:
	// unlimited, nothing can be short).
	stock *int
}

// decodeEquipment reads every writable equipment field into column
// assignments. The same decoder serves POST (create) and PATCH.
func decodeEquipment(in *rest.Input, create bool) write {
	var w write
	ch := &w.ch
	rules := updateRules
	if create {
		rules = createRules
	}
	name := in.String("name", rules.Get("name"))
	ch.SetIf(name.Set, "name", name.Value)
	for _, col := range []string{"brand", "model", "serial_number"} {
		v := in.String(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Ptr())
	}
	category := in.UUID("category_id", rules.Get("category_id"))
	ch.SetIf(category.Set, "category_id", category.Ptr())
	w.refs = []related.Ref{{Field: "category_id", Table: equipment.CategoryTable, ID: category.Ptr()}}
	stock := in.Int("stock_quantity", rules.Get("stock_quantity"))
	ch.SetIf(stock.Set, "stock_quantity", stock.Ptr())
	w.stock = stock.Ptr()
	rate := in.Money("daily_rate", rules.Get("daily_rate"))
	ch.SetIf(rate.Set, "daily_rate", rate.Ptr())
	for _, col := range caseColumns {
		v := in.Number(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Ptr())
	}
	caseType := in.String("case_type", rules.Get("case_type"))
	ch.SetIf(caseType.Set, "case_type", caseType.Ptr())
	status := in.String("status", rules.Get("status"))
	ch.SetIf(status.Set, "status", status.Value)
	in.ReadOnly(ReadOnly...)
	return w
}

// decodeCategory reads every writable category field. color must be a
// six-digit hex color (#RRGGBB) or null.
func decodeCategory(in *rest.Input, create bool) write {
	var w write
	ch := &w.ch
	rules := updateCategoryRules
	if create {
		rules = createCategoryRules
	}
	name := in.String("name", rules.Get("name"))
	ch.SetIf(name.Set, "name", name.Value)
	w.name = name.Ptr()
	// The document's pattern is checked here, with a message that shows
	// the expected form.
	colorRule := rules.Get("color")
	pattern := colorRule.Match
	colorRule.Match = nil
	color := in.String("color", colorRule)
	switch {
	case color.Set && !color.Null && !pattern.MatchString(color.Value):
		in.Issue("color", "must be a six-digit hex color such as #1E88E5")
	default:
		ch.SetIf(color.Set, "color", color.Ptr())
	}
	in.ReadOnly(CategoryReadOnly...)
	return w
}

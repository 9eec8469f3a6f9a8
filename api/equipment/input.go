package equipment

import (
	"regexp"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage"
	"github.com/eventapi/eventapi/storage/equipment"
	"github.com/eventapi/eventapi/storage/related"
)

// ReadOnly lists the fields equipment and categories may never write.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

// caseColumns are the case dimensions (inches) and weight (pounds):
// positive numbers or null.
var caseColumns = []string{"case_length_in", "case_width_in", "case_height_in", "weight_lbs"}

var (
	shortRule = rest.Rule{Nullable: true, MaxLen: 200}
	caseRule  = rest.Rule{Nullable: true, Positive: true}
	colorRe   = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)
)

// write is a decoded body: column assignments and the references to check
// against the organization before writing.
type write struct {
	ch   storage.Changes
	refs []related.Ref
	// name is the new category name, when the body sets one.
	name *string
}

// decodeEquipment reads every writable equipment field into column
// assignments. The same decoder serves POST (create) and PATCH.
func decodeEquipment(in *rest.Input, create bool) write {
	var w write
	ch := &w.ch
	name := in.String("name", rest.Rule{Required: create, MinLen: 1, MaxLen: 200})
	ch.SetIf(name.Set, "name", name.Value)
	for _, col := range []string{"brand", "model", "serial_number"} {
		v := in.String(col, shortRule)
		ch.SetIf(v.Set, col, v.Ptr())
	}
	category := in.UUID("category_id", rest.Rule{Nullable: true})
	ch.SetIf(category.Set, "category_id", category.Ptr())
	w.refs = []related.Ref{{Field: "category_id", Table: equipment.CategoryTable, ID: category.Ptr()}}
	stock := in.Int("stock_quantity", rest.Rule{Nullable: true, Min: rest.Bound(0)})
	ch.SetIf(stock.Set, "stock_quantity", stock.Ptr())
	rate := in.Money("daily_rate", rest.Rule{Nullable: true})
	ch.SetIf(rate.Set, "daily_rate", rate.Ptr())
	for _, col := range caseColumns {
		v := in.Number(col, caseRule)
		ch.SetIf(v.Set, col, v.Ptr())
	}
	caseType := in.String("case_type", rest.Rule{Nullable: true, OneOf: equipment.CaseTypes})
	ch.SetIf(caseType.Set, "case_type", caseType.Ptr())
	status := in.String("status", rest.Rule{OneOf: equipment.Statuses})
	ch.SetIf(status.Set, "status", status.Value)
	in.ReadOnly(ReadOnly...)
	return w
}

// decodeCategory reads every writable category field. color must be a
// six-digit hex color (#RRGGBB) or null.
func decodeCategory(in *rest.Input, create bool) write {
	var w write
	ch := &w.ch
	name := in.String("name", rest.Rule{Required: create, MinLen: 1, MaxLen: 100})
	ch.SetIf(name.Set, "name", name.Value)
	w.name = name.Ptr()
	color := in.String("color", rest.Rule{Nullable: true, MaxLen: 32})
	switch {
	case color.Set && !color.Null && !colorRe.MatchString(color.Value):
		in.Issue("color", "must be a six-digit hex color such as #1E88E5")
	default:
		ch.SetIf(color.Set, "color", color.Ptr())
	}
	in.ReadOnly(ReadOnly...)
	return w
}

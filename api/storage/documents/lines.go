package documents

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/tenancy"
)

// Line is one line item of a quote or an invoice.
type Line struct {
	ID          uuid.UUID    `bun:"id,type:uuid" json:"id"`
	EquipmentID *uuid.UUID   `bun:"equipment_id,type:uuid" json:"equipment_id"`
	Description string       `bun:"description" json:"description"`
	Quantity    int          `bun:"quantity" json:"quantity"`
	UnitPrice   money.Amount `bun:"unit_price" json:"unit_price"`
	LineTotal   money.Amount `bun:"line_total" json:"line_total"`
	// Parent is the quote or invoice the line belongs to; Position orders
	// the lines within it.
	Parent   uuid.UUID `bun:"parent_id,type:uuid" json:"-"`
	Position int       `bun:"position" json:"-"`
}

// MaxTotal is the largest line or document total (numeric(14,2)).
const MaxTotal money.Amount = 99_999_999_999_999

// The issues of a line total and of a document total over MaxTotal.
var (
	LineTotalIssue = atMostMaxTotal("quantity × unit_price")
	totalIssue     = atMostMaxTotal("the total")
)

// atMostMaxTotal is the issue of a figure over MaxTotal, which it writes as
// money (999999999999.99).
func atMostMaxTotal(figure string) string {
	return figure + " must be at most " + MaxTotal.String()
}

// Field is the body field that carries the line items.
const Field = "line_items"

// Total is the exact sum of the line totals; over MaxTotal it is a
// validation_error on line_items.
func Total(lines []Line) (money.Amount, error) {
	var t money.Amount
	for _, l := range lines {
		t += l.LineTotal
	}
	if t > MaxTotal {
		return 0, errs.InvalidField(Field, totalIssue)
	}
	return t, nil
}

// ResolveEquipment verifies, in one query, that every equipment_id of
// lines is equipment of org; each that is not is a validation_error naming
// the line. A line of equipment sent without a description gets the
// equipment's name as it is now: the document keeps what it said when it
// was written, whatever the equipment is renamed to later, and a reader
// without equipment:read sees what the line is (docs/decisions.md).
func ResolveEquipment(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, lines []Line) error {
	var ids []uuid.UUID
	for _, l := range lines {
		if l.EquipmentID != nil {
			ids = append(ids, *l.EquipmentID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var found []struct {
		ID   uuid.UUID `bun:"id"`
		Name string    `bun:"name"`
	}
	err := db.NewSelect().Table("equipment").Column("id", "name").
		Where("organization_id = ?", org).Where("id IN (?)", bun.List(ids)).
		Scan(ctx, &found)
	if err != nil {
		return database.Error(err)
	}
	names := make(map[uuid.UUID]string, len(found))
	for _, e := range found {
		names[e.ID] = e.Name
	}
	var issues []errs.FieldIssue
	for i, l := range lines {
		if l.EquipmentID == nil {
			continue
		}
		name, ok := names[*l.EquipmentID]
		switch {
		case !ok:
			issues = append(issues, errs.FieldIssue{Field: fmt.Sprintf("%s[%d].equipment_id", Field, i),
				Issue: "does not name a record of your organization"})
		case l.Description == "":
			lines[i].Description = name
		}
	}
	if len(issues) > 0 {
		return errs.Invalid(issues...)
	}
	return nil
}

// Table is a line items table and the column naming its parent document.
type Table struct {
	name, parent string
}

// The two line item tables.
var (
	QuoteLines   = Table{name: "quote_line_items", parent: "quote_id"}
	InvoiceLines = Table{name: "invoice_line_items", parent: "invoice_id"}
)

// Replace makes lines the whole set of line items of parent, in order, and
// returns them as stored (with ids).
func Replace(ctx context.Context, db bun.IDB, t Table, org tenancy.OrganizationID, parent uuid.UUID, lines []Line) ([]Line, error) {
	table, parentColumn := database.Ident(db, t.name), database.Ident(db, t.parent)
	_, err := db.NewRaw("DELETE FROM "+table+" WHERE organization_id = ? AND "+parentColumn+" = ?",
		org, parent).Exec(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	out := []Line{}
	if len(lines) == 0 {
		return out, nil
	}
	const row = "(?, ?, ?, ?, ?, ?, ?, ?)"
	rows := make([]string, len(lines))
	args := make([]any, 0, 8*len(lines))
	for i, l := range lines {
		rows[i] = row
		args = append(args, org, parent, i, l.EquipmentID, l.Description, l.Quantity, l.UnitPrice, l.LineTotal)
	}
	err = db.NewRaw(`INSERT INTO `+table+` (organization_id, `+parentColumn+`, position, equipment_id, description, quantity, unit_price, line_total)
		VALUES `+strings.Join(rows, ", ")+`
		RETURNING id, position, equipment_id, description, quantity, unit_price, line_total, `+parentColumn+` AS parent_id`,
		args...).Scan(ctx, &out)
	if err != nil {
		return nil, database.Error(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Position < out[j].Position })
	return out, nil
}

// Load returns the line items of each parent of org, in order, in one query.
func Load(ctx context.Context, db bun.IDB, t Table, org tenancy.OrganizationID, parents ...uuid.UUID) (map[uuid.UUID][]Line, error) {
	out := make(map[uuid.UUID][]Line, len(parents))
	if len(parents) == 0 {
		return out, nil
	}
	var rows []Line
	err := db.NewRaw(`SELECT id, position, equipment_id, description, quantity, unit_price, line_total, ? AS parent_id
		FROM ? WHERE organization_id = ? AND ? IN (?) ORDER BY ?, position`,
		bun.Ident(t.parent), bun.Ident(t.name), org, bun.Ident(t.parent), bun.List(parents), bun.Ident(t.parent)).Scan(ctx, &rows)
	if err != nil {
		return nil, database.Error(err)
	}
	for _, p := range parents {
		out[p] = []Line{}
	}
	for _, l := range rows {
		out[l.Parent] = append(out[l.Parent], l)
	}
	return out, nil
}

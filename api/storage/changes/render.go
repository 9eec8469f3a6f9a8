package changes

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/api/storage/crew"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/invoices"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// A renderer turns stored rows (to_jsonb of the record's table row) of one
// object type into the record's JSON as GET renders it.
type renderer func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, rows []json.RawMessage) ([]json.RawMessage, error)

var renderers = map[string]renderer{
	Event:                rows[events.Event]("events"),
	Client:               rows[clients.Client]("clients"),
	CrewMember:           rows[crew.Member]("crew_members"),
	Equipment:            rows[equipment.Equipment]("equipment"),
	EquipmentCategory:    rows[equipment.Category]("equipment_categories"),
	Vehicle:              rows[vehicles.Vehicle]("vehicles"),
	EquipmentReservation: rows[reservations.Reservation]("equipment_reservations"),
	PickList:             rows[picklists.PickList]("pick_lists"),
	PickListItem:         rows[picklists.Item]("pick_list_items"),
	Quote:                docs[quotes.Quote]("quotes", "quote_line_items", "quote_id"),
	Invoice:              docs[invoices.Invoice]("invoices", "invoice_line_items", "invoice_id"),
}

// Render replaces each change's stored row with the record as GET renders
// it, with one query per object type present.
func Render(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, cs []Change) error {
	byType := map[string][]int{}
	for i, c := range cs {
		byType[c.ObjectType] = append(byType[c.ObjectType], i)
	}
	for objectType, idx := range byType {
		render, ok := renderers[objectType]
		if !ok {
			return fmt.Errorf("changes: no renderer for object type %q", objectType)
		}
		in := make([]json.RawMessage, len(idx))
		for j, i := range idx {
			in[j] = cs[i].Data
		}
		out, err := render(ctx, db, org, in)
		if err != nil {
			return err
		}
		for j, i := range idx {
			cs[i].Data = out[j]
		}
	}
	return nil
}

// populated is the query that turns stored rows back into rows of table,
// in their order, with PostgreSQL's own types (jsonb_populate_record), so
// that they scan into the model exactly as a read from the table does.
const populated = `SELECT r.* FROM unnest(?::jsonb[]) WITH ORDINALITY AS u(d, n)
	CROSS JOIN LATERAL jsonb_populate_record(NULL::?, u.d) AS r
	WHERE r.organization_id = ? ORDER BY u.n`

// load scans stored rows of table into models of T, in order.
func load[T any](ctx context.Context, db bun.IDB, table string, org tenancy.OrganizationID, in []json.RawMessage) ([]T, error) {
	var models []T
	if err := db.NewRaw(populated, pgdialect.Array(rawStrings(in)), bun.Ident(table), org).Scan(ctx, &models); err != nil {
		return nil, database.Error(err)
	}
	if len(models) != len(in) {
		return nil, fmt.Errorf("changes: %d of %d stored %s rows rendered", len(models), len(in), table)
	}
	return models, nil
}

func rows[T any](table string) renderer {
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, in []json.RawMessage) ([]json.RawMessage, error) {
		models, err := load[T](ctx, db, table, org, in)
		if err != nil {
			return nil, err
		}
		return marshalAll(models)
	}
}

// storedLine is a line item of a stored quote or invoice row, with the
// index of the row it belongs to.
type storedLine struct {
	documents.Line
	N int `bun:"n"`
}

// docs renders quotes and invoices, whose stored rows carry line_items.
func docs[T any, PT documents.Doc[T]](table, linesTable, parent string) renderer {
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, in []json.RawMessage) ([]json.RawMessage, error) {
		models, err := load[T](ctx, db, table, org, in)
		if err != nil {
			return nil, err
		}
		var lines []storedLine
		err = db.NewRaw(`SELECT u.n, l.id, l.equipment_id, l.description, l.quantity, l.unit_price, l.line_total, l.position, l.? AS parent_id
			FROM unnest(?::jsonb[]) WITH ORDINALITY AS u(d, n)
			CROSS JOIN LATERAL jsonb_populate_recordset(NULL::?, coalesce(u.d -> 'line_items', '[]'::jsonb)) AS l
			WHERE l.organization_id = ? ORDER BY u.n, l.position`,
			bun.Ident(parent), pgdialect.Array(rawStrings(in)), bun.Ident(linesTable), org).Scan(ctx, &lines)
		if err != nil {
			return nil, database.Error(err)
		}
		byDoc := make([][]documents.Line, len(models))
		for _, l := range lines {
			byDoc[l.N-1] = append(byDoc[l.N-1], l.Line)
		}
		for i := range models {
			ls := byDoc[i]
			if ls == nil {
				ls = []documents.Line{}
			}
			PT(&models[i]).SetLines(ls)
		}
		return marshalAll(models)
	}
}

func marshalAll[T any](models []T) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(models))
	for i := range models {
		b, err := json.Marshal(&models[i])
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func rawStrings(in []json.RawMessage) []string {
	out := make([]string, len(in))
	for i, r := range in {
		out[i] = string(r)
	}
	return out
}

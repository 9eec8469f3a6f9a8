// Package related holds what the booking resources need from the records
// they point at: small read models of events, clients, equipment, categories
// and vehicles for `expand` (each loaded for a whole page in one query), the
// One wrapper that renders an expansion only when it was asked for, and the
// organization-scoped reference check behind every 422 on a foreign id.
package related

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// One is an expanded to-one relation, in the three states encoding/json
// renders natively (tag it `json:"name,omitzero"`): nil when it was not
// requested (left out), a pointer to nil when it was requested but the
// record has no such relation (null), else a pointer to the record. Being a
// plain double pointer, not a json.Marshaler, the expansion is encoded in
// the same pass as its parent: a Marshaler's output is parsed and compacted
// again by every enclosing encoder, which cost a fifth of a 1000-item
// manifest's CPU (docs/architecture.md, "Expansions").
type One[T any] = **T

// Expanded returns a requested relation holding v (nil renders null).
func Expanded[T any](v *T) One[T] { return &v }

// Pick returns the expansion of id from records loaded by a Load function.
func Pick[T any](records map[uuid.UUID]*T, id *uuid.UUID) One[T] {
	if id == nil {
		return Expanded[T](nil)
	}
	return Expanded(records[*id])
}

// Picker hands out the expansions of one relation for a whole read, as
// Pick returns them, from one array of cells instead of one allocation per
// record (a 1000-item manifest picks 1000 equipment records and 1000
// categories). A cell lives as long as any record points into its array.
type Picker[T any] struct{ cells []*T }

// NewPicker returns a Picker for n expansions; more are allocated alone.
func NewPicker[T any](n int) *Picker[T] { return &Picker[T]{cells: make([]*T, n)} }

// Pick returns the expansion of id from records, as the function Pick.
func (p *Picker[T]) Pick(records map[uuid.UUID]*T, id *uuid.UUID) One[T] {
	var v *T
	if id != nil {
		v = records[*id]
	}
	if len(p.cells) == 0 {
		return Expanded(v)
	}
	c := &p.cells[0]
	p.cells = p.cells[1:]
	*c = v
	return c
}

// IDs collects the distinct non-nil ids get returns for each item.
func IDs[T any](items []T, get func(*T) *uuid.UUID) []uuid.UUID {
	seen := map[uuid.UUID]bool{}
	var out []uuid.UUID
	for i := range items {
		if id := get(&items[i]); id != nil && !seen[*id] {
			seen[*id] = true
			out = append(out, *id)
		}
	}
	return out
}

// load reads the records of T's table with the given ids in org (kind names
// them in the query's span), in one query.
func load[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, kind string, key func(*T) uuid.UUID) (map[uuid.UUID]*T, error) {
	rows, err := storage.ByIDs[T](ctx, db, org, ids, kind)
	if err != nil {
		return nil, err
	}
	return keyed(rows, key), nil
}

// keyed maps each record of rows by its key.
func keyed[T any](rows []T, key func(*T) uuid.UUID) map[uuid.UUID]*T {
	out := make(map[uuid.UUID]*T, len(rows))
	for i := range rows {
		out[key(&rows[i])] = &rows[i]
	}
	return out
}

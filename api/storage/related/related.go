// Package related holds what the booking resources need from the records
// they point at: small read models of events, clients, equipment, categories
// and vehicles for `expand` (each loaded for a whole page in one query), the
// One wrapper that renders an expansion only when it was asked for, and the
// organization-scoped reference check behind every 422 on a foreign id.
package related

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// One is an expanded to-one relation. It is left out of the JSON unless it
// was requested (tag it `json:"name,omitzero"`), and renders null when it was
// requested but the record has no such relation.
type One[T any] struct {
	requested bool
	value     *T
}

// Expanded returns a requested relation holding v (nil renders null).
func Expanded[T any](v *T) One[T] { return One[T]{requested: true, value: v} }

// IsZero reports whether the relation was not requested (omitzero).
func (o One[T]) IsZero() bool { return !o.requested }

// Value returns the related record, or nil.
func (o One[T]) Value() *T { return o.value }

// MarshalJSON renders the record or null.
func (o One[T]) MarshalJSON() ([]byte, error) { return json.Marshal(o.value) }

// Pick returns the expansion of id from records loaded by a Load function.
func Pick[T any](records map[uuid.UUID]*T, id *uuid.UUID) One[T] {
	if id == nil {
		return Expanded[T](nil)
	}
	return Expanded(records[*id])
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

// load reads the records of T's table with the given ids in org, in one query.
func load[T any](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, key func(*T) uuid.UUID) (map[uuid.UUID]*T, error) {
	out := make(map[uuid.UUID]*T, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []T
	err := db.NewSelect().Model(&rows).
		Where("?TableAlias.organization_id = ?", org).
		Where("?TableAlias.id IN (?)", bun.In(ids)).
		Scan(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	for i := range rows {
		out[key(&rows[i])] = &rows[i]
	}
	return out, nil
}

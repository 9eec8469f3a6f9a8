package clients

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// Get loads one client of org.
func Get(ctx context.Context, db bun.IDB, org, id uuid.UUID) (*Client, error) {
	return scoped.Get[Client](ctx, db, org, id, Kind)
}

// ListFilter narrows the client list.
type ListFilter struct {
	// Search matches name or email, case-insensitively (trigram index).
	Search string
}

// List returns one page of org's clients.
func List(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest, f ListFilter) (scoped.Page[Client], error) {
	var filters []scoped.Filter
	if s := strings.ToLower(strings.TrimSpace(f.Search)); s != "" {
		pattern := "%" + escapeLike(s) + "%"
		filters = append(filters, func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lower(?TableAlias.name || ' ' || coalesce(?TableAlias.email, '')) LIKE ?", pattern)
		})
	}
	return scoped.List[Client](ctx, db, org, p, filters...)
}

// Create inserts a client into org from decoded fields.
func Create(ctx context.Context, db bun.IDB, org uuid.UUID, demo bool, ch scoped.Changes) (*Client, error) {
	return scoped.Create[Client](ctx, db, org, demo, ch)
}

// Update applies ch to the client id of org.
func Update(ctx context.Context, db bun.IDB, org, id uuid.UUID, ch scoped.Changes) (*Client, error) {
	return scoped.Update[Client](ctx, db, org, id, Kind, ch)
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

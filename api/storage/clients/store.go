package clients

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one client of org.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Client, error) {
	return storage.Get[Client](ctx, db, org, id, Kind)
}

// ListFilter narrows the client list.
type ListFilter struct {
	// Search matches name or email, case-insensitively (trigram index).
	Search string
}

// List returns one page of org's clients.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Client], error) {
	var filters []storage.Cond
	if s := strings.ToLower(strings.TrimSpace(f.Search)); s != "" {
		pattern := "%" + escapeLike(s) + "%"
		// The first test is the trigram index's expression, which finds
		// the candidates; the second keeps those that match within the
		// name or within the email, not across the space between them.
		filters = append(filters, storage.WherePlanned("lower(?TableAlias.name || ' ' || coalesce(?TableAlias.email, '')) LIKE ? "+
			"AND (lower(?TableAlias.name) LIKE ? OR lower(coalesce(?TableAlias.email, '')) LIKE ?)", pattern, pattern, pattern))
	}
	return storage.List[Client](ctx, db, org, p, filters...)
}

// Create inserts a client into org from decoded fields.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Client, error) {
	return storage.Create[Client](ctx, db, t, ch)
}

// Update applies ch to the client id of org.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Client, error) {
	return storage.Update[Client](ctx, db, org, id, Kind, ch)
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

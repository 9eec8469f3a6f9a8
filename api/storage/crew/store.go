package crew

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one crew member of org.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Member, error) {
	return storage.Get[Member](ctx, db, org, id, Kind)
}

// List returns one page of org's crew members.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[Member], error) {
	return storage.List[Member](ctx, db, org, p)
}

// Create inserts a crew member into org from decoded fields.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Member, error) {
	return storage.Create[Member](ctx, db, t, ch)
}

// Update applies ch to the crew member id of org.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Member, error) {
	return storage.Update[Member](ctx, db, org, id, Kind, ch)
}

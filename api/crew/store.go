package crew

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// Get loads one crew member of org.
func Get(ctx context.Context, db bun.IDB, org, id uuid.UUID) (*Member, error) {
	return scoped.Get[Member](ctx, db, org, id, Kind)
}

// List returns one page of org's crew members.
func List(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest) (scoped.Page[Member], error) {
	return scoped.List[Member](ctx, db, org, p)
}

// Create inserts a crew member into org from decoded fields.
func Create(ctx context.Context, db bun.IDB, org uuid.UUID, demo bool, ch scoped.Changes) (*Member, error) {
	return scoped.Create[Member](ctx, db, org, demo, ch)
}

// Update applies ch to the crew member id of org.
func Update(ctx context.Context, db bun.IDB, org, id uuid.UUID, ch scoped.Changes) (*Member, error) {
	return scoped.Update[Member](ctx, db, org, id, Kind, ch)
}

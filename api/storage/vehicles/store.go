package vehicles

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one vehicle of org, whatever its status.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Vehicle, error) {
	return storage.Get[Vehicle](ctx, db, org, id, Kind)
}

// ListAvailable returns one page of org's available vehicles: the fleet a
// load planner may assign.
func ListAvailable(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[Vehicle], error) {
	return storage.List[Vehicle](ctx, db, org, p, storage.Where("?TableAlias.status = ?", StatusAvailable))
}

// Create inserts a vehicle into org from decoded fields.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Vehicle, error) {
	return storage.Create[Vehicle](ctx, db, t, ch)
}

// Update applies ch to the vehicle id of org.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Vehicle, error) {
	return storage.Update[Vehicle](ctx, db, org, id, Kind, ch)
}

// Assignable returns nil when id is a vehicle of org with status available,
// else a 422 validation_error on vehicle_id (a vehicle of another
// organization is reported exactly like a missing one). The row is locked
// as Load locks it, so inside the caller's transaction the vehicle cannot
// leave available before the assignment commits.
func Assignable(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	v, err := storage.Get[Vehicle](ctx, db, org, id, Kind, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Column("id", "status").For(loadLock)
	})
	switch {
	case errs.Is(err, errs.NotFound):
		return errs.InvalidField("vehicle_id", related.IssueNotInOrg)
	case err != nil:
		return err
	case v.Status != StatusAvailable:
		return errs.InvalidField("vehicle_id", "vehicle is "+v.Status+"; only available vehicles can be assigned")
	}
	return nil
}

// loadLock is the row lock of a vehicle that a write loads: it conflicts
// with itself (and with the vehicle's own updates), so writes that change
// what one truck carries run one after the other, and each write's load
// warning counts every line committed before it (docs/availability.md,
// "Warnings on reservation writes"). It does not conflict with the key
// share lock a foreign key check takes.
const loadLock = "NO KEY UPDATE"

// Load locks the vehicle id of org as a write that changes its load must
// before summing it (loadLock); a vehicle that is not org's is left alone.
func Load(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	_, err := db.NewSelect().Table("vehicles").Column("id").
		Where("organization_id = ?", org).Where("id = ?", id).For(loadLock).Exec(ctx)
	return database.Error(err)
}

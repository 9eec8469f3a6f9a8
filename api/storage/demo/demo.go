// Package demo seeds an organization with a believable AV, staging and
// lighting rental house: categories, equipment with case sizes and weights,
// trucks, clients, crew, events and their bookings, and a week ahead that
// shows the planning endpoints' answers (planner.go). The CLI's demo command
// and the operator's SandboxOrganization use it. It also keeps which
// organizations the demo command made, the ones it may reuse
// (organizations.go).
package demo

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Seed fills t's organization with demo data in one transaction; t.Demo
// marks the records.
func Seed(ctx context.Context, db bun.IDB, t tenancy.Tenant) error {
	return database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		s := &seeder{tx: tx, t: t}
		for _, step := range []func(context.Context) error{s.catalogue, s.bookings, s.planner} {
			if err := step(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

type seeder struct {
	tx bun.Tx
	t  tenancy.Tenant
	// ids of seeded records, by kind and in seeding order, for later steps
	// to reference. events[0] is the confirmed upcoming event, events[1] the
	// one in progress; vehicles holds the whole fleet (one is in
	// maintenance), availableVehicles those that can be assigned.
	clients, events, equipment, vehicles, crew []uuid.UUID
	categories, availableVehicles              []uuid.UUID
	// equipmentNamed maps catalogue item names to the seeded ids.
	equipmentNamed map[string]uuid.UUID
}

package events

import (
	"context"

	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/tenancy"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
)

// resource serves GET, POST and PATCH of events; the records a body names
// (client_id) are checked against the organization before the write, and
// GET inlines the event's reservations on request (expand.go).
func resource(env *rest.Env) crud.Resource[events.Event, events.Fields] {
	return crud.Resource[events.Event, events.Fields]{
		Kind: events.Kind, Env: env, Decode: decodeFields,
		Get: events.Get, Update: events.Update,
		Create: func(ctx context.Context, db bun.IDB, t tenancy.Tenant, f events.Fields) (*events.Event, error) {
			return events.Create(ctx, db, t, f.Changes)
		},
		Check: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, _ uuid.UUID, f events.Fields) error {
			return related.Check(ctx, db, org, f.Refs...)
		},
		Warn:      warnings,
		Expand:    expansions,
		Show:      show,
		LargeWith: []string{"equipment_reservations"},
	}
}

// list serves GET /events and its alias GET /jobs. Both share one cursor
// scope, so a cursor from one continues on the other.
func list(env *rest.Env) fiber.Handler {
	return crud.List[events.Event](env, func(q *rest.Query, org tenancy.OrganizationID) (string, crud.ListFunc[events.Event]) {
		f := events.ListFilter{Status: q.Enum("status", events.Statuses...), Window: q.DateWindow()}
		return storage.ListScope("events", org, append([]string{f.Status}, f.Window.ScopeParams()...)...),
			func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[events.Event], error) {
				return events.List(ctx, db, org, p, f)
			}
	})
}

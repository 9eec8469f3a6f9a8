package events

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/related"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
)

// resource serves GET, POST and PATCH of events; the records a body names
// (client_id) are checked against the organization before the write, and
// GET inlines the event's reservations on request (expand.go).
func resource(env *rest.Env) crud.Resource[Event, Fields] {
	return crud.Resource[Event, Fields]{
		Kind: Kind, Env: env, Decode: decodeFields,
		Get: Get, Update: Update,
		Create: func(ctx context.Context, db bun.IDB, org uuid.UUID, demo bool, f Fields) (*Event, error) {
			return Create(ctx, db, org, demo, f.Changes)
		},
		Check: func(ctx context.Context, db bun.IDB, org, _ uuid.UUID, f Fields) error {
			return related.Check(ctx, db, org, f.Refs...)
		},
		Expand: Expansions,
		Show:   show,
	}
}

// list serves GET /events and its alias GET /jobs. Both share one cursor
// scope, so a cursor from one continues on the other.
func list(env *rest.Env) fiber.Handler {
	return crud.List[Event](env, func(c *fiber.Ctx, org uuid.UUID) (string, crud.ListFunc[Event], error) {
		status, err := rest.QueryEnum(c, "status", Statuses...)
		if err != nil {
			return "", nil, err
		}
		return "events:" + org.String() + ":" + status,
			func(ctx context.Context, db bun.IDB, org uuid.UUID, p rest.PageRequest) (scoped.Page[Event], error) {
				return List(ctx, db, org, p, ListFilter{Status: status})
			}, nil
	})
}

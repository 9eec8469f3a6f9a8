package reservations

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/storage/reservations"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

type handlers struct{ env *rest.Env }

// Expansions is what ?expand accepts on the reservation endpoints, each with
// the scopes of its object type's GET route.
var Expansions = []rest.Expansion{
	rest.Expand("equipment", tenancy.EquipmentReaders...),
	rest.Expand("event", tenancy.EventReaders...),
	rest.Expand("vehicle", tenancy.VehicleReaders...),
}

// written is the body of a successful write: data, plus its warnings
// (overbooked in warn mode, over_payload and over_volume for a key that may
// read reservations, ignored_fields), absent when none.
type written = rest.Written[*reservations.Reservation]

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	q := rest.NewQuery(c)
	f := reservations.ListFilter{
		EventID:   q.UUID("event_id"),
		VehicleID: q.UUID("vehicle_id"),
		Status:    q.Enum("status", reservations.Statuses...),
		Window:    q.DateWindow(),
	}
	want := q.Expansions(Expansions...)
	scope := storage.ListScope("equipment_reservations", org,
		append([]string{storage.IDParam(f.EventID), storage.IDParam(f.VehicleID), f.Status}, f.Window.ScopeParams()...)...)
	p := q.Page(h.env.Cursors, scope)
	if err := q.Err(); err != nil {
		return err
	}
	db := h.env.Conn(ctx)
	page, err := reservations.List(ctx, db, org, p, f)
	if err != nil {
		return err
	}
	if err := reservations.Expand(ctx, db, org, page.Items, want); err != nil {
		return err
	}
	if len(want) > 0 {
		// the equipment, event and vehicle are repeated for each
		// reservation that points at them
		page.Bytes += storage.ExpandedBytes(page.Items)
	}
	return rest.ListPage(c, h.env, page, storage.Next(page, p, h.env.Cursors))
}

func (h handlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, reservations.Kind)
	if err != nil {
		return err
	}
	want, err := rest.ParseExpansions(c, Expansions...)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	org, db := tenancy.OrgID(ctx), h.env.Conn(ctx)
	r, err := reservations.Get(ctx, db, org, id)
	if err != nil {
		return err
	}
	one := []reservations.Reservation{*r}
	if err := reservations.Expand(ctx, db, org, one, want); err != nil {
		return err
	}
	return rest.OK(c, &one[0])
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	b := decode(in, true)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	r, warns, err := reservations.Create(ctx, h.env.Conn(ctx), p.Tenant(), b.newReservation(), b.override)
	if err != nil {
		return err
	}
	in.NoteIgnored(b.unwritten(in, r)...)
	return c.Status(fiber.StatusCreated).JSON(writtenWith(ctx, r, warns, rest.IgnoredWarnings(in)...))
}

func (h handlers) patch(c *fiber.Ctx) error {
	id, err := rest.PathID(c, reservations.Kind)
	if err != nil {
		return err
	}
	in, err := rest.PatchBody(c)
	if err != nil {
		return err
	}
	b := decode(in, false)
	if err := in.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	p := tenancy.MustFromContext(ctx)
	r, warns, err := reservations.Update(ctx, h.env.Conn(ctx), p.Tenant(), id, b.apply, b.override)
	if err != nil {
		return err
	}
	in.NoteIgnored(b.unwritten(in, r)...)
	return c.Status(fiber.StatusOK).JSON(writtenWith(ctx, r, warns, rest.IgnoredWarnings(in)...))
}

func (h handlers) delete(c *fiber.Ctx) error {
	id, err := rest.PathID(c, reservations.Kind)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if err := reservations.Delete(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id); err != nil {
		return err
	}
	return rest.NoContent(c)
}

// writtenWith is the write's body: the store's warnings, then extra ones.
// The warnings that tell of other reservations (the truck load's,
// overdue_returns) go only to a key that may read reservations (MayRead):
// a POST needs the write scope alone, and their details name or sum the
// equipment's or the truck's other reservations. (A PATCH needs the read
// scope anyway.)
func writtenWith(ctx context.Context, r *reservations.Reservation, warns []reservations.Warning, extra ...rest.Warning) written {
	out := written{Data: r}
	// The scope is checked only for a reservation that may carry such a
	// warning, one on a truck or one that may warn of overdue units: a
	// check is recorded for a replay of the answer (auth.Passed), so
	// whether a warning came must not decide whether it is made.
	mayWarn := r.VehicleID != nil || r.MayWarnOfOverdue(tenancy.MustFromContext(ctx).StockGuardMode)
	seesOthers := mayWarn && MayRead(ctx)
	for _, w := range warns {
		if w.TellsOfOthers() && !seesOthers {
			continue
		}
		out.Warnings = append(out.Warnings, rest.Warning{Code: w.Code, Details: w.Details})
	}
	out.Warnings = append(out.Warnings, extra...)
	return out
}

package webhooks

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/changes"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func (h handlers) list(c *fiber.Ctx) error {
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	q := rest.NewQuery(c)
	q.Expansions()
	p := q.Page(h.env.Cursors, storage.ListScope("webhook_endpoints", org))
	if err := q.Err(); err != nil {
		return err
	}
	page, err := store.ListEndpoints(ctx, h.env.Conn(ctx), org, p)
	if err != nil {
		return err
	}
	for i := range page.Items {
		h.showResume(org, &page.Items[i])
	}
	return rest.Page(c, page.Items, storage.Next[store.Endpoint](page, p, h.env.Cursors))
}

func (h handlers) create(c *fiber.Ctx) error {
	in, err := rest.Body(c)
	if err != nil {
		return err
	}
	if h.opt.Sealer == nil {
		return errs.New(errs.ServiceUnavailable, "webhook registration is not available on this instance")
	}
	ctx := c.UserContext()
	d := h.decode(ctx, in, true)
	if err := in.Err(); err != nil {
		return err
	}
	// An endpoint receives each change's whole record: subscribing must not
	// reach what the key cannot read.
	if err := changes.CheckReadable(ctx, d.events.Value, store.AllEvents); err != nil {
		return err
	}
	e, err := store.CreateEndpoint(ctx, h.env.Conn(ctx), tenancy.TenantOf(ctx), h.opt.Sealer, store.NewEndpoint{
		URL: d.url.Value, Description: d.description.Ptr(), EnabledEvents: d.events.Value,
		CreatedByKeyID: tenancy.MustFromContext(ctx).KeyID,
	})
	if err != nil {
		return err
	}
	// The answer shows the signing secret: a replay is for this key alone, and
	// no cache keeps it.
	rest.HoldsSecret(c)
	return rest.Created(c, e)
}

func (h handlers) get(c *fiber.Ctx) error {
	id, err := rest.PathID(c, store.EndpointKind)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	e, err := store.GetEndpoint(ctx, h.env.Conn(ctx), org, id)
	if err != nil {
		return err
	}
	h.showResume(org, e)
	return rest.OK(c, e)
}

func (h handlers) update(c *fiber.Ctx) error {
	id, err := rest.PathID(c, store.EndpointKind)
	if err != nil {
		return err
	}
	in, err := rest.PatchBody(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	d := h.decode(ctx, in, false)
	if err := in.Err(); err != nil {
		return err
	}
	p := store.EndpointPatch{URL: d.url.Ptr(), Status: d.status.Ptr(),
		Description: d.description.Ptr(), DescriptionSet: d.description.Set}
	if d.events.Set {
		p.EnabledEvents = d.events.Value
	}
	org := tenancy.OrgID(ctx)
	e, err := store.UpdateEndpoint(ctx, h.env.Conn(ctx), org, id, p, func(events []string) error {
		if sendsNothingNew(p) {
			return nil
		}
		return changes.CheckReadable(ctx, events, store.AllEvents)
	})
	if err != nil {
		return err
	}
	h.showResume(org, e)
	return rest.Updated(c, e, in)
}

// showResume sets e's resume_cursor, the change-feed cursor of the place
// its latest disable kept (store.Endpoint.DisabledPosition): reading the
// feed from there lists every change the endpoint was not sent because it
// was disabled (docs/webhooks.md, "Delivery and retries"). An endpoint
// never disabled has none.
func (h handlers) showResume(org tenancy.OrganizationID, e *store.Endpoint) {
	if e.DisabledPosition == nil || e.DisabledSeq == nil {
		return
	}
	cursor := changes.ResumeCursor(h.env.Cursors, org, *e.DisabledPosition, *e.DisabledSeq)
	e.ResumeCursor = &cursor
}

// sendsNothingNew reports whether p only stops the endpoint or relabels it
// (status disabled, a description): that sends no record anywhere, so a
// key with the webhook scopes may halt a broken integration without the
// read scopes of its subscription, as it may delete the endpoint. Any
// other change decides where the subscription's records go (the URL above
// all) or resumes sending them, and needs the key to read them all
// (docs/webhooks.md).
func sendsNothingNew(p store.EndpointPatch) bool {
	return p.URL == nil && p.EnabledEvents == nil && (p.Status == nil || *p.Status == store.Disabled)
}

func (h handlers) delete(c *fiber.Ctx) error {
	id, err := rest.PathID(c, store.EndpointKind)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if err := store.DeleteEndpoint(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id); err != nil {
		return err
	}
	return rest.NoContent(c)
}

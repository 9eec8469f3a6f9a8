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

// deliveries serves GET /webhook_endpoints/{id}/deliveries: newest first,
// each with its attempts, of one status when ?status names it.
func (h handlers) deliveries(c *fiber.Ctx) error {
	id, err := rest.PathID(c, store.EndpointKind)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	org := tenancy.OrgID(ctx)
	q := rest.NewQuery(c)
	status := q.Enum("status", store.Statuses...)
	q.Expansions()
	scope := storage.ListScope("webhook_deliveries", org, id.String())
	if status != "" {
		// A cursor of one status's list is refused by another's and by
		// the unfiltered list: each status's list has a scope of its own.
		scope = storage.ListScope("webhook_deliveries", org, id.String(), status)
	}
	p := q.Page(h.env.Cursors, scope)
	if err := q.Err(); err != nil {
		return err
	}
	page, err := store.ListDeliveries(ctx, h.env.Conn(ctx), org, id, status, p)
	if err != nil {
		return err
	}
	return rest.Page(c, page.Items, storage.Next[store.Delivery](page, p, h.env.Cursors))
}

// retry serves POST .../deliveries/{delivery_id}/retry: the delivery is due
// again now, whatever its status.
func (h handlers) retry(c *fiber.Ctx) error {
	id, err := rest.PathID(c, store.EndpointKind)
	if err != nil {
		return err
	}
	did, err := storage.ParseUUID(c.Params("delivery_id"))
	if err != nil {
		return errs.NotFoundOf(store.DeliveryKind)
	}
	if err := rest.NoFields(c); err != nil {
		return err
	}
	ctx := c.UserContext()
	// The delivery goes to the endpoint's URL as it is now: the key must
	// be able to read the record it carries, as for a subscription.
	d, err := store.Retry(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), id, did, func(changeType string) error {
		return changes.CheckReadable(ctx, []string{changeType}, store.AllEvents)
	})
	if err != nil {
		return err
	}
	return rest.OK(c, d)
}

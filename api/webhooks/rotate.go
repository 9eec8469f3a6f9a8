package webhooks

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/changes"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// rotateRules are the field rules of a rotation's body (bounds 0 to 7
// days), from the OpenAPI document.
var rotateRules = openapi.Rules("WebhookSecretRotation")

// rotate serves POST /webhook_endpoints/{id}/rotate_secret
// (docs/webhooks.md, "Rotating the secret"): a new secret, shown in the
// answer only, and the replaced one signing beside it for the grace period
// the body asks (default 24 h).
func (h handlers) rotate(c *fiber.Ctx) error {
	id, err := rest.PathID(c, store.EndpointKind)
	if err != nil {
		return err
	}
	keep, err := previousSecretTTL(c.Body())
	if err != nil {
		return err
	}
	if h.opt.Sealer == nil {
		return errs.New(errs.ServiceUnavailable, "webhook secrets cannot be rotated on this instance")
	}
	ctx := c.UserContext()
	// The new secret signs every record the endpoint is subscribed to: the
	// key must be able to read them all, as for a change of the endpoint.
	org := tenancy.OrgID(ctx)
	e, err := store.RotateSecret(ctx, h.env.Conn(ctx), org, h.opt.Sealer, id, keep, func(events []string) error {
		return changes.CheckReadable(ctx, events, store.AllEvents)
	})
	if err != nil {
		return err
	}
	h.showResume(org, &e.Endpoint)
	// The answer shows the new secret: a replay is for this key alone, and
	// no cache keeps it.
	rest.HoldsSecret(c)
	return rest.OK(c, e)
}

// previousSecretTTL reads a rotation's body: none, or an object with at
// most previous_secret_expires_in, whole seconds from 0 to 7 days. A body
// that is not JSON is 400; any other field, a value of another type, a
// fraction, null or a value out of range is 422 naming the field.
func previousSecretTTL(body []byte) (time.Duration, error) {
	if len(body) == 0 {
		return store.DefaultPreviousSecretTTL, nil
	}
	in, err := rest.ParseObject(body)
	if err != nil {
		return 0, err
	}
	f := in.Int("previous_secret_expires_in", rotateRules.Get("previous_secret_expires_in"))
	if err := in.Err(); err != nil {
		return 0, err
	}
	if !f.Set {
		return store.DefaultPreviousSecretTTL, nil
	}
	return time.Duration(f.Value) * time.Second, nil
}

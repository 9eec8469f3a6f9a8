package rest

import (
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// RenderError answers err, what c.Next returned to a middleware that
// records the request's answer (its span, its duration sample, its access
// line, its request log record, its idempotency record), with render, the
// app's error handler, so that what the middleware records is the answer
// the client gets (docs/architecture.md, "Errors"). The rule, stated once:
//
//   - err nil: nothing to answer; pass and failed are nil.
//   - render nil: err is left to a handler further out; pass is err.
//   - otherwise err is answered and pass is nil: returned, it would be
//     rendered again by each middleware further out, over the answer given.
//   - a render that fails (the encoder refused the error's details) leaves
//     no answer a client can read: the status it set, over the handler's
//     body or none. The request is then answered as an internal error,
//     rendered by render in its surface's envelope, which logs the failure
//     as its cause; should that fail too, 500 in plain text, as Fiber
//     answers when its error handler fails. failed is the first render's
//     error, for a middleware to record (the tracing middleware puts it on
//     the span when it rendered the error), never to return: the answer is
//     final all the same.
func RenderError(c *fiber.Ctx, render fiber.ErrorHandler, err error) (pass, failed error) {
	if err == nil {
		return nil, nil
	}
	if render == nil {
		return err, nil
	}
	failed = render(c, err)
	if failed == nil {
		return nil, nil
	}
	// The headers the refused answer set say nothing of a 500.
	c.Response().Header.Del(fiber.HeaderAllow)
	c.Response().Header.Del(fiber.HeaderWWWAuthenticate)
	c.Response().Header.Del(fiber.HeaderRetryAfter)
	// The cause names both errors as text only: unwrapped, a *fiber.Error
	// in err would make FromFiber answer err's status again.
	internal := errs.Wrap(fmt.Errorf("rendering %v: %v", err, failed), "internal error")
	if render(c, internal) != nil {
		c.Response().ResetBody()
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		_ = c.SendStatus(fiber.StatusInternalServerError)
	}
	return nil, failed
}

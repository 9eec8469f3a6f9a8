package rest_test

import (
	"errors"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestFromFiber: Fiber's own errors become the service's codes with the
// service's own messages; no text of Fiber's reaches a client.
func TestFromFiber(t *testing.T) {
	cases := []struct {
		in   error
		code errs.Code
		msg  string
	}{
		{fiber.ErrNotFound, errs.NotFound, "no such route"},
		{fiber.ErrRequestEntityTooLarge, errs.PayloadTooLarge, ""},
		{fiber.ErrRequestTimeout, errs.RequestTimeout, "the request did not arrive in time"},
		{fiber.NewError(fiber.StatusUnprocessableEntity, "json: cannot unmarshal number into Go struct field x.y of type string"),
			errs.Validation, "the request could not be read"},
		{fiber.NewError(fiber.StatusBadRequest, "error when parsing request: invalid header key"), errs.BadRequest, "the request could not be read"},
		// Not method_not_allowed: the service's 405 names the path's
		// methods (Allow), which Fiber's does not carry, and the server
		// never lets Fiber answer one (TestWrongMethods): one would be the
		// service's bug, not the request's.
		{fiber.ErrMethodNotAllowed, errs.Internal, "internal error"},
	}
	for _, c := range cases {
		got := rest.FromFiber(c.in)
		if got.Code != c.code || (c.msg != "" && got.Message != c.msg) {
			t.Errorf("FromFiber(%v) = %s %q, want %s %q", c.in, got.Code, got.Message, c.code, c.msg)
		}
	}
	if got := rest.FromFiber(errors.New("plain")); got.Code != errs.Internal || got.Message != "internal error" {
		t.Errorf("a plain error: %s %q", got.Code, got.Message)
	}
}

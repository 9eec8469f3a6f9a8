package rest

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// V2Prefix is the path prefix of the v2 surface, whose answers use the
// envelopes of this file (V1Prefix is the v1 one's).
const V2Prefix = "/api/v2"

const (
	localRequestID      = "eventapi.request_id"
	localRequestArrival = "eventapi.request_arrival"
)

// EnsureRequestID returns the request id of c, assigning one (header, local
// and user context) if the request id middleware has not run yet. The id is
// a UUIDv7 carrying the millisecond of RequestArrival, and it is also the id
// of the request's record in the request log (docs/observability.md).
func EnsureRequestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(localRequestID).(string); ok && id != "" {
		return id
	}
	now := time.Now()
	id := requestlog.NewID(now).String()
	c.Locals(localRequestID, id)
	c.Locals(localRequestArrival, now)
	c.Set(HeaderRequestID, id)
	c.SetUserContext(telemetry.WithRequestID(c.UserContext(), id))
	return id
}

// RequestArrival returns when c's request id was assigned: the request's
// arrival when the request id middleware runs first, as it does in the app.
func RequestArrival(c *fiber.Ctx) time.Time {
	EnsureRequestID(c)
	at, _ := c.Locals(localRequestArrival).(time.Time)
	return at
}

// Data is the single-record envelope.
type Data[T any] struct {
	Data T `json:"data"`
}

// Pagination is the cursor block of a list envelope.
type Pagination struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// List is the list envelope.
type List[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// OK writes 200 {data: v}.
func OK[T any](c *fiber.Ctx, v T) error { return respond(c, fiber.StatusOK, Data[T]{Data: v}) }

// Created writes 201 {data: v}.
func Created[T any](c *fiber.Ctx, v T) error {
	return respond(c, fiber.StatusCreated, Data[T]{Data: v})
}

// NoContent writes 204 with no body.
func NoContent(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) }

// Page writes 200 {data: items, pagination}.
func Page[T any](c *fiber.Ctx, items []T, next *string) error {
	return PageOf(c, items, Pagination{NextCursor: next, HasMore: next != nil})
}

// PageOf writes 200 {data: items, pagination} with pagination as given, for
// a list whose has_more is not whether a cursor follows (the change feed
// returns its cursor at the end of the feed too).
func PageOf[T any](c *fiber.Ctx, items []T, pagination Pagination) error {
	if items == nil {
		items = []T{}
	}
	return respond(c, fiber.StatusOK, List[T]{Data: items, Pagination: pagination})
}

// Warning is an entry of the top-level warnings array of an answer: of a
// write (what was written, ignored_fields) or of a GET
// (ignored_parameters).
type Warning struct {
	Code    string `json:"code"`
	Details any    `json:"details"`
}

// WarningIgnoredFields is the code of the warning a PATCH gets when its body
// carried fields that were not written (read-only or unknown ones).
const WarningIgnoredFields = "ignored_fields"

// IgnoredFieldsDetails is the details of an ignored_fields warning.
type IgnoredFieldsDetails struct {
	Fields []string `json:"fields"`
}

// Written is the envelope of a write that may carry warnings beside data.
type Written[T any] struct {
	Data     T         `json:"data"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// IgnoredWarnings returns the ignored_fields warning of a decoded body, or
// nil when every field it carried was used. It names the first
// errs.MaxListedFields of them.
func IgnoredWarnings(in *Input) []Warning {
	fields := in.Ignored()
	if len(fields) == 0 {
		return nil
	}
	fields = fields[:min(len(fields), errs.MaxListedFields)]
	return []Warning{{Code: WarningIgnoredFields, Details: IgnoredFieldsDetails{Fields: fields}}}
}

// Updated writes 200 {data: v, warnings?}: the warnings about what was
// written (more), then the one about the fields of in that were ignored.
func Updated[T any](c *fiber.Ctx, v T, in *Input, more ...Warning) error {
	return respond(c, fiber.StatusOK, Written[T]{Data: v, Warnings: append(more, IgnoredWarnings(in)...)})
}

package rest

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// HeaderRequestID carries the request id on every response.
const HeaderRequestID = "X-Request-Id"

const localRequestID = "eventapi.request_id"

// EnsureRequestID returns the request id of c, assigning one (header, local
// and user context) if the request id middleware has not run yet.
func EnsureRequestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(localRequestID).(string); ok && id != "" {
		return id
	}
	id := uuid.NewString()
	c.Locals(localRequestID, id)
	c.Set(HeaderRequestID, id)
	c.SetUserContext(telemetry.WithRequestID(c.UserContext(), id))
	return id
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
func OK[T any](c *fiber.Ctx, v T) error { return c.Status(fiber.StatusOK).JSON(Data[T]{Data: v}) }

// Created writes 201 {data: v}.
func Created[T any](c *fiber.Ctx, v T) error {
	return c.Status(fiber.StatusCreated).JSON(Data[T]{Data: v})
}

// NoContent writes 204 with no body.
func NoContent(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) }

// Page writes 200 {data: items, pagination}.
func Page[T any](c *fiber.Ctx, items []T, next *string) error {
	if items == nil {
		items = []T{}
	}
	return c.Status(fiber.StatusOK).JSON(List[T]{Data: items, Pagination: Pagination{NextCursor: next, HasMore: next != nil}})
}

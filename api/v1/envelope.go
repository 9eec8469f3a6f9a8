package v1

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/tenancy"
)

// Meta is the meta block of a single-record response.
type Meta struct {
	OrgID uuid.UUID `json:"org_id"`
}

// ListMeta is the meta block of a list response; Total counts the records
// across all pages.
type ListMeta struct {
	OrgID uuid.UUID `json:"org_id"`
	Page  int       `json:"page"`
	Total int       `json:"total"`
}

// One is the v1 single-record envelope.
type One[T any] struct {
	Data T    `json:"data"`
	Meta Meta `json:"meta"`
}

// Many is the v1 list envelope.
type Many[T any] struct {
	Data []T      `json:"data"`
	Meta ListMeta `json:"meta"`
}

func writeOne[T any](c *fiber.Ctx, org tenancy.OrganizationID, v T) error {
	return c.Status(fiber.StatusOK).JSON(One[T]{Data: v, Meta: Meta{OrgID: org.UUID}})
}

func writeMany[T any](c *fiber.Ctx, org tenancy.OrganizationID, page int, items []T, total int) error {
	if items == nil {
		items = []T{}
	}
	return c.Status(fiber.StatusOK).JSON(Many[T]{Data: items, Meta: ListMeta{OrgID: org.UUID, Page: page, Total: total}})
}

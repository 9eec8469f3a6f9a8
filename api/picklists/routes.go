// Package picklists serves warehouse pick lists and their items over
// storage/picklists: the status
// flow of a list (draft → in_progress → packed/complete), the forward-only
// stage of an item, expansion of items, equipment and categories without
// N+1 queries, and the pick list an approved quote generates.
package picklists

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.PickListReaders

// Routes registers the pick list and pick list item endpoints on r (the
// authenticated /api/v2 group). Reads accept pick_lists:read, events:read or
// the legacy jobs:read; writes need pick_lists:write, and a PATCH a read
// scope as well (the rule of crud.Mount).
func Routes(r fiber.Router, env *rest.Env) {
	h := handlers{env: env}
	read := auth.Require(ReadScopes...)
	write := auth.Require(tenancy.PickListsWrite)
	r.Get("/pick_lists", read, h.list)
	r.Post("/pick_lists", write, h.create)
	r.Get("/pick_lists/:id", read, h.get)
	env.PatchLarge(r, "/pick_lists/:id", []tenancy.Scope{tenancy.PickListsWrite}, ReadScopes, h.patch)
	r.Post("/pick_list_items", write, h.createItem)
	r.Patch("/pick_list_items/:id", write, read, h.patchItem)
	r.Delete("/pick_list_items/:id", write, h.deleteItem)
}

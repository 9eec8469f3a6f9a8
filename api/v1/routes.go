// Package v1 serves the page-numbered v1 reference surface (equipment, jobs,
// crew) on /api/v1. It reads the same tables as the v2 resource packages
// through the read models of api/storage/v1store, decodes v1's parameters
// and bodies, answers in the v1 envelopes ({data, meta:{org_id[, page,
// total]}}) and leaves the v1 error envelope to rest.ErrorHandler. See
// docs/v1.md.
package v1

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/v1store"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Routes registers the v1 endpoints on r (the authenticated /api/v1 group).
// Methods not registered here answer 405 METHOD_NOT_ALLOWED through the
// app's fallback.
func Routes(r fiber.Router, env *rest.Env) {
	equipmentRead := auth.Require(tenancy.EquipmentRead)
	// equipment:write is only effective together with equipment:read: two
	// Require handlers in a row demand both.
	equipmentWrite := auth.Require(tenancy.EquipmentWrite)
	jobsRead := auth.Require(tenancy.JobsRead)
	crewRead := auth.Require(tenancy.CrewRead)

	equipment := resource[v1store.Equipment]{view: v1store.EquipmentView}
	r.Get("/equipment", equipmentRead, listHandler(env, equipment))
	r.Get("/equipment/:id", equipmentRead, getHandler(env, equipment))
	r.Patch("/equipment/:id", equipmentRead, equipmentWrite, patchEquipment(env))

	r.Get("/jobs", jobsRead, listHandler(env, jobs))
	r.Get("/jobs/:id", jobsRead, getHandler(env, jobs))

	crew := resource[v1store.Crew]{view: v1store.CrewView}
	r.Get("/crew", crewRead, listHandler(env, crew))
	r.Get("/crew/:id", crewRead, getHandler(env, crew))
}

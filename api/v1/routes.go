// Package v1 serves the page-numbered v1 reference surface (equipment, jobs,
// crew) on /api/v1. It reads the same tables as the v2 resource packages
// through small read models of its own, answers in the v1 envelopes
// ({data, meta:{org_id[, page, total]}}) and leaves the v1 error envelope to
// rest.ErrorHandler. See docs/v1.md.
package v1

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
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

	r.Get("/equipment", equipmentRead, listHandler(env, equipmentView, nil))
	r.Get("/equipment/:id", equipmentRead, getHandler(env, equipmentView))
	r.Patch("/equipment/:id", equipmentRead, equipmentWrite, patchEquipment(env))

	r.Get("/jobs", jobsRead, listHandler(env, jobView, jobFilters))
	r.Get("/jobs/:id", jobsRead, getHandler(env, jobView))

	r.Get("/crew", crewRead, listHandler(env, crewView, nil))
	r.Get("/crew/:id", crewRead, getHandler(env, crewView))
}

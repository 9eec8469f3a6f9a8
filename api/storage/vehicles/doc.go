// Package vehicles stores the fleet vehicles of an organization: the bun model, its
// organization-scoped queries, and Assignable, the check other packages run
// before assigning a vehicle to a reservation. The HTTP side is api/vehicles.
package vehicles

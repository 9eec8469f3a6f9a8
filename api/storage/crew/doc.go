// Package crew stores the crew members of an organization: the bun model and its
// organization-scoped queries. The HTTP side is api/crew.
package crew

// Package events stores events: the bun model, the decoded fields of a write with its
// date window check, and the organization-scoped queries. The HTTP side is
// api/events.
package events

// Package quotes stores quotes: the bun model and its organization-scoped queries.
// Numbers (Q-000001) are gap-free per organization, line items replace as a
// set with an exact server-computed total, and approving a quote creates its
// one pick list in the same transaction. The HTTP side is api/quotes.
package quotes

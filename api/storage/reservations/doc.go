// Package reservations stores equipment reservations (truck assignments) under the stock
// guard: the bun model and its organization-scoped queries. A write locks the
// equipment row, sums the overlapping reservations and decides in one
// transaction, so stock is never oversold across instances. The HTTP side is
// api/reservations.
package reservations

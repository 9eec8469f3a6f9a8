// Package invoices stores invoices: the bun model and its organization-scoped
// queries. Numbers (INV-000001) are gap-free per organization and line items
// replace as a set with an exact server-computed total. The HTTP side is
// api/invoices.
package invoices

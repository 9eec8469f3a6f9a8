// Package documents stores what quotes and invoices share: their line items
// (organization checks, exact totals, replace-the-whole-set storage, batched
// loading), their gap-free per-organization numbers (Q-000001, INV-000001)
// and the client and event expansions.
package documents

// Package documents holds what quotes and invoices share: their line items
// (decoding, organization checks, exact totals, replace-the-whole-set
// storage, batched loading) and their gap-free per-organization numbers
// (Q-000001, INV-000001) and the handler pieces crud does not cover: the
// status-filtered list and the client and event expansions.
package documents

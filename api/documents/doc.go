// Package documents holds the HTTP pieces quotes and invoices share that
// crud does not cover: the decoding of a body (the shared fields and the
// line items), the status-filtered list and the detail with its
// expansions. Storage lives in storage/documents.
package documents

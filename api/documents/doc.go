// Package documents holds the HTTP pieces quotes and invoices share that
// crud does not cover: line item decoding, the status-filtered list and the
// detail with its expansions. Storage lives in storage/documents.
package documents

// Package v1store reads and writes the tables behind the v1 surface
// (equipment, jobs, crew) in v1's shapes: the bun read models, their joins
// and orderings, and the organization-scoped queries and transactions that
// api/v1 calls. The HTTP side (decoding, handlers, the v1 envelopes and job
// statuses) is api/v1; the shapes are those of docs/v1.md.
package v1store

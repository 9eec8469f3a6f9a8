// Package idempotency stores the durable half of an Idempotency-Key: its
// idempotency_keys row (migration 20261121000400), for the middleware of
// api/middleware/idempotency, which holds the HTTP behaviour (docs/edge.md,
// "Idempotency-Key"). The row is inserted in the keyed request's own
// transaction (Open, OpenWithin: the middleware begins it, passes it here,
// then hands it to the handler's stores through rest.WithTx) and completed
// with the response before COMMIT (Complete), so a committed write always
// has its response on record, whatever happens to the process or to Redis
// after. The handler's work runs under a savepoint of that transaction
// (Savepoint, RollbackToSavepoint). Find and OwnerRunning read the row
// outside it; Purge deletes the rows past the retention, in every
// organization.
package idempotency

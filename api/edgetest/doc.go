// Package edgetest holds the black-box tests of the edge layer against the
// real Redis and PostgreSQL: rate-limit accuracy across two `eventapi serve`
// processes sharing one Redis, Idempotency-Key under concurrency and across a
// process killed (SIGKILL) between COMMIT and its reply, behaviour while a Redis server is
// really stopped and after it restarts, and sandbox keys. It has no
// non-test code; see docs/edge.md for the design under test.
package edgetest

// Command fleet is the fleet harness (bench/README.md, "fleet"): it starts
// its own PostgreSQL (initdb in a temporary directory), a PgBouncer in
// transaction mode in front of it, a 3-master Redis Cluster
// (scripts/redis-cluster.sh), N `eventapi serve` pods and an HAProxy in
// front of them configured like a Kubernetes Service (TCP balancing,
// health checks on /readyz at the chart's readiness period and failure
// threshold, no retries, no redispatch). It seeds the demo organization,
// drives a constant mixed load through HAProxy, from a keep-alive client
// and a new-connection-per-request client (clients.go), and runs the
// scenarios: a rolling restart of every pod, a Redis master killed for
// 10 s, PostgreSQL stopped for 15 s (every pod turns unready), and one pod
// killed with SIGKILL and started again (kill.go). A keyed write whose
// answer was not a final one (no answer, a 5xx, a 429, a 409
// idempotency_key_in_use) is retried with its key as an integrator does
// (retry.go), and at the end the reservations each key created are
// counted in the database. It prints request and status counts, failures
// and recovery times per phase and client kind, then stops everything it
// started.
//
// Each scenario states what it expects, by the product's design as docs/
// describes it and with bounds derived from the configured periods (the
// comment of each scenario's function says why each holds; assert.go),
// and keyed writes must be exactly once in every phase. The harness
// prints every expectation with PASS or FAIL and exits 1 when one failed.
// It is a benchmark a user runs (scripts/fleet.sh, about 5 minutes), not
// part of the test command. It never touches the shared PostgreSQL or
// Redis.
package main

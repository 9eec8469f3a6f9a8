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
// 10 s, and PostgreSQL stopped for 15 s (every pod turns unready). It
// prints request and status counts, failures and recovery times per phase
// and client kind, then stops everything it started.
//
// It is a benchmark a user runs (scripts/fleet.sh), not a test: nothing is
// asserted. It never touches the shared PostgreSQL or Redis.
package main

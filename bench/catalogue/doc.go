// Package catalogue measures the read throughput of the clients resource
// through the full eventapi middleware chain against a bare baseline: a
// net/http server with a pgxpool handler that runs the same SQL and writes
// the same JSON, with no middleware at all, and a second one (PGJSON) that
// has PostgreSQL build the JSON, as PostgREST and pREST do. The servers run
// on loopback and are driven by the load generator in this package (closed
// loop at a fixed concurrency for the maximum, open loop at a fixed rate for
// latency, reporting when the server did not keep up).
//
// The program that runs the whole comparison is ./cmd/catbench; see
// bench/README.md. The tests here are quick checks that both baselines answer
// what the app answers, that the load generator counts right, and that
// ListenerPID finds a server by its listening socket.
package catalogue

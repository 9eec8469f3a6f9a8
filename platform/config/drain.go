package config

import "fmt"

// Warnings lists settings that are valid alone but work against each other;
// serve logs each at start. They are warnings, not refusals: the service
// stays correct, and the operator may have chosen the trade-off.
func (c Config) Warnings() []string {
	var w []string
	// A stopping pod serves for DrainDelay, then gives the requests still
	// in flight ShutdownTimeout and cancels the rest (their queries are
	// cancelled and their writes roll back). A request that arrived just
	// before the listener closed has only ShutdownTimeout, so a longer
	// RequestTimeout lets it be cut off at a pod's stop before its own
	// timeout. Refusing would stop every pod of a deployment that chose a
	// short shutdown for quick rollouts (bench/fleet runs 10 s with the 20 s
	// default), so it is said once at start instead (docs/helm.md).
	if c.RequestTimeout > c.ShutdownTimeout {
		w = append(w, fmt.Sprintf("EVENTAPI_REQUEST_TIMEOUT (%v) is longer than EVENTAPI_SHUTDOWN_TIMEOUT (%v): "+
			"a request running longer than the shutdown timeout when its pod stops is cancelled before its own timeout",
			c.RequestTimeout, c.ShutdownTimeout))
	}
	return w
}

package server

import "context"

// Guard exposes guard to the external tests.
var Guard = guard

// GuardedTestApp exposes guardedTestApp to the external tests.
var GuardedTestApp = guardedTestApp

// MeterEdgeStore exposes meterUp of the edge store's gauge to the external
// tests.
func MeterEdgeStore(ping func(context.Context) error) (stop func()) {
	return meterUp(edgeUpGauge, ping, edgeUpTimeout)
}

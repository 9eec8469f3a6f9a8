package server

// Guard exposes guard to the external tests.
var Guard = guard

// GuardedTestApp exposes guardedTestApp to the external tests.
var GuardedTestApp = guardedTestApp

// MeterEdgeStore exposes meterEdgeStore to the external tests.
var MeterEdgeStore = meterEdgeStore

package server

// Guard exposes guard to the external tests.
var Guard = guard

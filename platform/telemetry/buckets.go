package telemetry

// RequestSeconds are the boundaries, in seconds, that the OpenTelemetry
// semantic conventions advise for an HTTP request's duration (5 ms to
// 10 s). The server's request histogram uses them, and the webhook
// attempt histogram extends them, so the two compare.
func RequestSeconds() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
}

package rest

// The API's own header names, stated once for the middlewares that read
// or write them (docs/observability.md, "The request log"; docs/edge.md,
// "Idempotency-Key").
const (
	// HeaderRequestID carries the request id on every response.
	HeaderRequestID = "X-Request-Id"
	// HeaderIdempotencyKey is the request header carrying a write's
	// idempotency key.
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderIdempotentReplayed marks a response replayed for a repeated
	// Idempotency-Key ("true").
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

package telemetry

import "context"

type untracedKey struct{}

// Untraced returns ctx marked so that the statements run under it make no
// spans (the SQL hook of platform/database, the spans of api/storage's
// parameterised statements and the Redis hook of platform/edge check it;
// go-redis's dial spans are its own, whoever asked). Every other hook
// still sees them.
// The webhook worker runs under it: it polls about twice a second on every
// pod, and each poll was a trace of its own, of nothing; its work shows in
// the eventapi.webhook.* metrics instead (docs/observability.md). So do the
// probes (/livez, /readyz: api/middleware/tracing's Untraced paths), which
// the kubelet sends every few seconds.
func Untraced(ctx context.Context) context.Context {
	return context.WithValue(ctx, untracedKey{}, true)
}

// IsUntraced reports whether ctx was marked by Untraced.
func IsUntraced(ctx context.Context) bool {
	u, _ := ctx.Value(untracedKey{}).(bool)
	return u
}

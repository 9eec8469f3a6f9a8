// Package edge benchmarks the per-request cost of the edge layer through the
// real middleware (api/middleware/ratelimit and api/middleware/idempotency)
// against the real Redis and PostgreSQL: microseconds per request (mean,
// p50, p99) and Redis round trips per request, counted by a go-redis hook.
// Its test checks the round-trip budget exactly: the limiter makes 1 per
// request, Idempotency-Key 2 for a fresh key and 1 for a replay, and a
// request without the header 0.
//
// Run: go test -run '^$' -bench . -benchmem ./bench/edge/
package edge

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTrips is a go-redis hook counting round trips to Redis: one per
// command and one per pipeline. Dials are not counted.
type RoundTrips struct{ n atomic.Int64 }

var _ redis.Hook = (*RoundTrips)(nil)

// Load is the number of round trips so far.
func (r *RoundTrips) Load() int64 { return r.n.Load() }

// DialHook implements redis.Hook.
func (r *RoundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

// ProcessHook implements redis.Hook.
func (r *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (r *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

package server

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// edgeUpEvery is how often the edge store is checked for the gauge, and
// edgeUpTimeout bounds one check.
const (
	edgeUpEvery   = 5 * time.Second
	edgeUpTimeout = time.Second
)

var (
	// edgeUpGauge is 1 while the edge store's check passes, 0 while it
	// fails (docs/observability.md, EventapiRedisUnavailable). It moves
	// without traffic, unlike the fail-open and unavailable counters.
	edgeUpGauge metric.Int64ObservableGauge
	// edgeMeter made the gauge; its callback must be registered with it.
	edgeMeter metric.Meter
)

func init() {
	edgeMeter = otel.Meter("github.com/eventapi/eventapi/api/server")
	edgeUpGauge, _ = edgeMeter.Int64ObservableGauge("eventapi.edge_store.up",
		metric.WithDescription("1 when the edge store (Redis) passed its last check (the one /readyz reports, every 5 s, at most 1 s each), 0 when it failed; only on a pod with EVENTAPI_REDIS_URL set."))
}

// meterEdgeStore checks the edge store with ping every edgeUpEvery, from
// now, and reports the last outcome as edgeUpGauge at each collection,
// until the returned function stops the checks and unregisters the gauge.
//
// The check runs on a goroutine of its own, never in the collection's
// callback: the SDK holds its lock while callbacks run, and a check that
// makes the Redis client register instruments of its own (a Cluster client
// making a node's client, which redisotel instruments) waited for that
// lock under it, so the pod's /metrics never answered again and its stop
// hung on the same lock. The checks run under telemetry.Untraced: each
// would otherwise be a trace of its own. Until the first check ends there
// is no sample.
func meterEdgeStore(ping func(ctx context.Context) error) (stop func()) {
	var up atomic.Int64
	up.Store(-1) // no check has ended yet
	ctx, cancel := context.WithCancel(telemetry.Untraced(context.Background()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(edgeUpEvery)
		defer tick.Stop()
		for {
			check, end := context.WithTimeout(ctx, edgeUpTimeout)
			err := ping(check)
			end()
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				up.Store(0)
			} else {
				up.Store(1)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	reg, err := edgeMeter.RegisterCallback(
		func(_ context.Context, o metric.Observer) error {
			if v := up.Load(); v >= 0 {
				o.ObserveInt64(edgeUpGauge, v)
			}
			return nil
		}, edgeUpGauge)
	return func() {
		cancel()
		<-done
		if err == nil {
			_ = reg.Unregister()
		}
	}
}

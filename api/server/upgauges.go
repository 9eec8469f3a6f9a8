package server

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// upEvery is how often a dependency is checked for its gauge, and
// edgeUpTimeout bounds one check of the edge store (a check of PostgreSQL
// has /readyz's bound, ReadyTimeout).
const (
	upEvery       = 5 * time.Second
	edgeUpTimeout = time.Second
)

var (
	// edgeUpGauge is 1 while the edge store's check passes, 0 while it
	// fails (docs/observability.md, EventapiRedisUnavailable);
	// databaseUpGauge the same for PostgreSQL (EventapiDatabaseUnavailable).
	// They move without traffic, unlike the counters of refused requests:
	// a pod that cannot reach PostgreSQL is not ready, leaves the load
	// balancer's rotation and gets no request but the probes.
	edgeUpGauge, databaseUpGauge metric.Int64ObservableGauge
	// upMeter made the gauges; their callbacks must be registered with it.
	upMeter metric.Meter
)

func init() {
	upMeter = otel.Meter("github.com/eventapi/eventapi/api/server")
	edgeUpGauge, _ = upMeter.Int64ObservableGauge("eventapi.edge_store.up",
		metric.WithDescription("1 when the edge store (Redis) passed its last check (the one /readyz reports, every 5 s, at most 1 s each), 0 when it failed; only on a pod with EVENTAPI_REDIS_URL set."))
	databaseUpGauge, _ = upMeter.Int64ObservableGauge("eventapi.database.up",
		metric.WithDescription("1 when PostgreSQL (through PgBouncer when it is in the path) answered the pod's last check (the one /readyz reports, every 5 s, at most 2 s each), 0 when it did not."))
}

// meterUp checks a dependency with ping every upEvery, each check bounded
// by timeout, from now, and reports the last outcome as gauge at each
// collection, until the returned function stops the checks and
// unregisters the gauge.
//
// The check runs on a goroutine of its own, never in the collection's
// callback: the SDK holds its lock while callbacks run, and a check that
// makes the Redis client register instruments of its own (a Cluster client
// making a node's client, which redisotel instruments) waited for that
// lock under it, so the pod's /metrics never answered again and its stop
// hung on the same lock. The checks run under telemetry.Untraced: each
// would otherwise be a trace of its own. Until the first check ends there
// is no sample.
func meterUp(gauge metric.Int64ObservableGauge, ping func(ctx context.Context) error, timeout time.Duration) (stop func()) {
	var up atomic.Int64
	up.Store(-1) // no check has ended yet
	ctx, cancel := context.WithCancel(telemetry.Untraced(context.Background()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(upEvery)
		defer tick.Stop()
		for {
			check, end := context.WithTimeout(ctx, timeout)
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
	reg, err := upMeter.RegisterCallback(
		func(_ context.Context, o metric.Observer) error {
			if v := up.Load(); v >= 0 {
				o.ObserveInt64(gauge, v)
			}
			return nil
		}, gauge)
	return func() {
		cancel()
		<-done
		if err == nil {
			_ = reg.Unregister()
		}
	}
}

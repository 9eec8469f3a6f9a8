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

// upGauge is a dependency's gauge: 1 while its check passes, 0 while it
// fails. edgeUpGauge is the edge store's (docs/observability.md,
// EventapiRedisUnavailable), databaseUpGauge PostgreSQL's
// (EventapiDatabaseUnavailable). They move without traffic, unlike the
// counters of refused requests: a pod that cannot reach PostgreSQL is not
// ready, leaves the load balancer's rotation and gets no request but the
// probes.
type upGauge struct{ name, description string }

var (
	edgeUpGauge = upGauge{"eventapi.edge_store.up",
		"1 when the edge store (Redis) passed its last check (the one /readyz reports, every 5 s, at most 1 s each), 0 when it failed; only on a pod with EVENTAPI_REDIS_URL set."}
	databaseUpGauge = upGauge{"eventapi.database.up",
		"1 when PostgreSQL (through PgBouncer when it is in the path) answered the pod's last check (the one /readyz reports, every 5 s, at most 2 s each), 0 when it did not."}
)

// register makes the gauge in the global meter provider as it is now and
// registers observe as its callback. Made at each registration rather
// than once at init: an instrument made before the provider was set is
// bound to the first provider a process sets, and a process that serves
// twice (the tests of serve) exported the second service's gauge nowhere.
func (g upGauge) register(observe func(o metric.Observer, gauge metric.Int64ObservableGauge)) (metric.Registration, error) {
	m := otel.GetMeterProvider().Meter("github.com/eventapi/eventapi/api/server")
	gauge, err := m.Int64ObservableGauge(g.name, metric.WithDescription(g.description))
	if err != nil {
		return nil, err
	}
	return m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		observe(o, gauge)
		return nil
	}, gauge)
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
func meterUp(gauge upGauge, ping func(ctx context.Context) error, timeout time.Duration) (stop func()) {
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
	reg, err := gauge.register(func(o metric.Observer, g metric.Int64ObservableGauge) {
		if v := up.Load(); v >= 0 {
			o.ObserveInt64(g, v)
		}
	})
	return func() {
		cancel()
		<-done
		if err == nil {
			_ = reg.Unregister()
		}
	}
}

// WaitGauge reports eventapi_database_up while serve waits for PostgreSQL
// at start, before the service opens and checks it itself (meterUp): no
// sample until an attempt to reach it has failed, then 0. Without it a pod
// that started during an outage had no series, and
// EventapiDatabaseUnavailable could not fire when every pod restarted
// during one (docs/observability.md).
type WaitGauge struct {
	failed atomic.Bool
	reg    metric.Registration
}

// MeterDatabaseWait registers the gauge of the wait; Stop unregisters it.
func MeterDatabaseWait() *WaitGauge {
	g := &WaitGauge{}
	g.reg, _ = databaseUpGauge.register(func(o metric.Observer, gauge metric.Int64ObservableGauge) {
		if g.failed.Load() {
			o.ObserveInt64(gauge, 0)
		}
	})
	return g
}

// Failed records an attempt to reach PostgreSQL that failed.
func (g *WaitGauge) Failed() { g.failed.Store(true) }

// Stop ends the gauge of the wait: the open service's own check reports
// from then on.
func (g *WaitGauge) Stop() {
	if g.reg != nil {
		_ = g.reg.Unregister()
	}
}

package server

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// edgeUpTimeout bounds the edge store's check at each collection: a scrape
// waits for it.
const edgeUpTimeout = time.Second

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
		metric.WithDescription("1 when the edge store (Redis) passes the check /readyz reports, 0 when it fails or takes over 1 s; checked at each collection, only on a pod with EVENTAPI_REDIS_URL set."))
}

// meterEdgeStore reports ping's outcome as edgeUpGauge at each collection
// until the returned function unregisters it. The check runs under
// telemetry.Untraced: a scrape has no request around it, and each would
// otherwise be a trace of its own.
func meterEdgeStore(ping func(ctx context.Context) error) (unregister func()) {
	reg, err := edgeMeter.RegisterCallback(
		func(ctx context.Context, o metric.Observer) error {
			ctx, cancel := context.WithTimeout(telemetry.Untraced(ctx), edgeUpTimeout)
			defer cancel()
			up := int64(1)
			if ping(ctx) != nil {
				up = 0
			}
			o.ObserveInt64(edgeUpGauge, up)
			return nil
		}, edgeUpGauge)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}

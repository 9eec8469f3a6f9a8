package telemetry

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// serviceResource describes the process to every exporter: the SDK's
// defaults, the service name, the process's instance (instanceID) and the
// host's name (a pod's name in Kubernetes), then OTEL_RESOURCE_ATTRIBUTES
// and OTEL_SERVICE_NAME (which win). Without an instance, every pod pushed
// its running counters under one identity, which a metrics backend merges
// into one series that goes up and down (docs/observability.md, "Metrics").
func serviceResource(ctx context.Context, serviceName string) *resource.Resource {
	res, _ := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(serviceName), semconv.ServiceInstanceID(instanceID)))
	res = detected(ctx, res, resource.WithHost())
	return detected(ctx, res, resource.WithFromEnv())
}

// detected is res with what detect finds merged over it (its values win);
// res itself when detection fails. What a detector could partly read is
// kept (an OTEL_RESOURCE_ATTRIBUTES with a stray comma still sets the
// attributes it names). A merge of two schema URLs returns every attribute
// without a schema, and is kept too.
func detected(ctx context.Context, res *resource.Resource, detect resource.Option) *resource.Resource {
	found, err := resource.New(ctx, detect)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return res
	}
	merged, _ := resource.Merge(res, found)
	return merged
}

// instanceID is this process's service.instance.id: a random uuid drawn at
// start, as the OpenTelemetry semantic conventions advise where no stable
// identity is at hand (a pod restarted is a new instance).
var instanceID = uuid.NewString()

// metricsEnabled reports whether metrics are pushed over OTLP: an OTLP
// endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) and neither OTEL_METRICS_EXPORTER=none
// nor OTEL_SDK_DISABLED=true turns it off.
func metricsEnabled(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(getenv("OTEL_METRICS_EXPORTER"), "none") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

func metricInterval() time.Duration {
	if v := os.Getenv("OTEL_METRIC_EXPORT_INTERVAL"); v != "" {
		if ms, err := time.ParseDuration(v + "ms"); err == nil && ms > 0 {
			return ms
		}
	}
	return time.Minute
}

func newMetricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	proto, err := otlpProtocol(os.Getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if proto == protoGRPC {
		return otlpmetricgrpc.New(ctx)
	}
	return otlpmetrichttp.New(ctx)
}

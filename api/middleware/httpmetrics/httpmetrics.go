// Package httpmetrics records the OpenTelemetry HTTP server duration
// histogram (http.server.request.duration, seconds) for every request,
// labelled with the method, the route template (never the raw path), the
// status code and its class (2xx...5xx). It never labels by organization.
package httpmetrics

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// StatusClassKey is the status class attribute (2xx, 4xx, ...), which keeps
// dashboards' error queries simple.
const StatusClassKey = attribute.Key("http.response.status_class")

var duration metric.Float64Histogram

func init() {
	duration, _ = otel.Meter("github.com/eventapi/eventapi/api/middleware/httpmetrics").Float64Histogram(
		"http.server.request.duration",
		metric.WithDescription("Duration of HTTP server requests."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(telemetry.RequestSeconds()...))
}

// refusedSets holds the attribute sets of requests refused before routing.
var refusedSets attributeSets

// RecordRefused records a request that the HTTP layer answered before the
// middleware chain ran (an unknown method, a request line or header block
// over its limit, conflicting framing), so that the histogram counts every
// request. Such a request has no route.
func RecordRefused(ctx context.Context, method string, status int, elapsed time.Duration) {
	duration.Record(ctx, elapsed.Seconds(), metric.WithAttributeSet(refusedSets.of(Method(method), status, "")))
}

// Config configures the middleware.
type Config struct {
	Routes *route.Resolver
	// ErrorHandler renders an error so the recorded status is the final one
	// (rest.RenderError).
	ErrorHandler fiber.ErrorHandler
}

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	var sets attributeSets
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err, _ := rest.RenderError(c, cfg.ErrorHandler, c.Next())
		set := sets.of(Method(c.Method()), c.Response().StatusCode(), cfg.Routes.Of(c))
		duration.Record(c.UserContext(), time.Since(start).Seconds(), metric.WithAttributeSet(set))
		return err
	}
}

// seriesKey names one series of the histogram.
type seriesKey struct {
	method, route string
	status        int
}

// attributeSets keeps each series' attribute set once made: the series are
// few (methods × routes × statuses seen), and a set made per request cost
// its slice, its sort and its hash every time.
type attributeSets struct{ m sync.Map } // seriesKey → attribute.Set

func (a *attributeSets) of(method string, status int, route string) attribute.Set {
	k := seriesKey{method, route, status}
	if v, ok := a.m.Load(k); ok {
		return v.(attribute.Set)
	}
	attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(method),
		semconv.HTTPResponseStatusCode(status), StatusClassKey.String(Class(status))}
	if route != "" {
		attrs = append(attrs, semconv.HTTPRoute(route))
	}
	set := attribute.NewSet(attrs...)
	a.m.Store(k, set)
	return set
}

var methods = func() map[string]string {
	m := map[string]string{}
	for _, v := range fiber.DefaultMethods {
		m[v] = v
	}
	return m
}()

// Method returns the label value of method: a constant string, since the
// label outlives the request and, in an app without fiber.Config.Immutable,
// c.Method() points into a buffer the next request reuses. A method Fiber
// does not route is "_OTHER", as the semantic conventions advise.
func Method(method string) string {
	if v, ok := methods[method]; ok {
		return v
	}
	return "_OTHER"
}

// Class returns "2xx" for 200..299 and so on.
func Class(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}

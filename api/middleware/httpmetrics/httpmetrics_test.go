package httpmetrics_test

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/eventapi/eventapi/api/middleware/httpmetrics"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
)

// metrics is the process's Prometheus meter provider, installed once as
// serve does: the histogram is created through the global API at init and
// binds to the first provider set.
var metrics *telemetry.Metrics

func TestMain(m *testing.M) {
	var err error
	if metrics, err = telemetry.SetupPrometheusMetrics(context.Background(), "httpmetrics-test"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

const family = "http_server_request_duration_seconds"

// series returns the sample count of every series of the duration
// histogram, keyed by its exact label set, read from the /metrics exposition.
func series(t *testing.T) map[string]uint64 {
	t.Helper()
	rec := httptest.NewRecorder()
	metrics.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	out := map[string]uint64{}
	f := fams[family]
	if f == nil {
		return out
	}
	if f.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("%s is a %v, want a histogram", family, f.GetType())
	}
	for _, m := range f.GetMetric() {
		ls := map[string]string{}
		for _, l := range m.GetLabel() {
			ls[l.GetName()] = l.GetValue()
		}
		out[key(ls)] = m.GetHistogram().GetSampleCount()
	}
	return out
}

// key renders a label set in a stable order.
func key(ls map[string]string) string {
	s := ""
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		s += k + "=" + ls[k] + ";"
	}
	return s
}

func TestOneObservationPerRequestWithTheFinalStatusAndRoute(t *testing.T) {
	tests := []struct {
		name, method, path string
		// want is the exact label set of the one observation: route template
		// (absent for an unknown path), method, final status and its class;
		// never the raw path or the organization.
		want map[string]string
	}{
		{"success", "GET", "/things/42", map[string]string{
			"http_request_method": "GET", "http_route": "/things/{id}",
			"http_response_status_code": "200", "http_response_status_class": "2xx"}},
		{"an error rendered by the error handler", "GET", "/things/missing", map[string]string{
			"http_request_method": "GET", "http_route": "/things/{id}",
			"http_response_status_code": "404", "http_response_status_class": "4xx"}},
		{"an error whose render failed: the 500 answered", "GET", "/things/unrenderable", map[string]string{
			"http_request_method": "GET", "http_route": "/things/{id}",
			"http_response_status_code": "500", "http_response_status_class": "5xx"}},
		{"a failure", "POST", "/things/boom", map[string]string{
			"http_request_method": "POST", "http_route": "/things/{id}",
			"http_response_status_code": "500", "http_response_status_class": "5xx"}},
		{"a status set by the handler", "POST", "/things/7", map[string]string{
			"http_request_method": "POST", "http_route": "/things/{id}",
			"http_response_status_code": "201", "http_response_status_class": "2xx"}},
		{"an unknown path has no route label", "GET", "/nowhere/9", map[string]string{
			"http_request_method":       "GET",
			"http_response_status_code": "404", "http_response_status_class": "4xx"}},
	}
	handler := rest.ErrorHandler(slog.New(slog.DiscardHandler))
	// Not Immutable (unlike the real app): the labels must not depend on it.
	app := fiber.New(fiber.Config{ErrorHandler: handler})
	app.Use(func(c *fiber.Ctx) error { // a principal is present, yet never a label
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{}))
		return c.Next()
	})
	app.Use(httpmetrics.New(httpmetrics.Config{Routes: route.New(app), ErrorHandler: handler}))
	app.Get("/things/:id", func(c *fiber.Ctx) error {
		switch c.Params("id") {
		case "missing":
			return errs.New(errs.NotFound, "thing not found")
		case "unrenderable":
			return &errs.Error{Code: errs.Validation, Message: "bad", Details: unrenderable{}}
		}
		return c.SendStatus(200)
	})
	app.Post("/things/:id", func(c *fiber.Ctx) error {
		if c.Params("id") == "boom" {
			return errs.New(errs.Internal, "boom")
		}
		return c.SendStatus(201)
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := series(t)
			resp, err := app.Test(httptest.NewRequest(tt.method, tt.path, nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			after := series(t)
			want := key(tt.want)
			if got := strconv.Itoa(resp.StatusCode); got != tt.want["http_response_status_code"] {
				t.Fatalf("status %s, want %s", got, tt.want["http_response_status_code"])
			}
			for k, n := range after {
				if d := n - before[k]; k != want && d != 0 {
					t.Errorf("series %s grew by %d, want only %s", k, d, want)
				}
			}
			if d := after[want] - before[want]; d != 1 {
				t.Fatalf("series %s grew by %d, want 1; series: %v", want, d, after)
			}
		})
	}
}

// unrenderable is details no encoder can write: the render of an error
// carrying it fails.
type unrenderable struct{}

func (unrenderable) MarshalJSON() ([]byte, error) { return nil, errors.New("details refused") }

func TestMethod(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"GET", "GET"}, {"POST", "POST"}, {"PATCH", "PATCH"}, {"DELETE", "DELETE"}, {"OPTIONS", "OPTIONS"},
		{"BREW", "_OTHER"}, {"get", "_OTHER"}, {"", "_OTHER"},
	} {
		if got := httpmetrics.Method(tt.in); got != tt.want {
			t.Errorf("Method(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClass(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   string
	}{
		{99, "other"}, {100, "1xx"}, {200, "2xx"}, {299, "2xx"}, {304, "3xx"},
		{404, "4xx"}, {499, "4xx"}, {500, "5xx"}, {599, "5xx"}, {600, "other"},
	} {
		if got := httpmetrics.Class(tt.status); got != tt.want {
			t.Errorf("Class(%d) = %q, want %q", tt.status, got, tt.want)
		}
	}
}

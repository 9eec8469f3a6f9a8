package config_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/requestlog"
)

// TestChartDefaultsAreTheServices: the chart's values.yaml always sets the
// settings below (its helpers write each one into the pods' environment),
// so its defaults, not the binary's, are what a Helm install runs. Each
// must equal the default the service takes without the variable, or a
// default changed in Go reaches make run but never a cluster.
func TestChartDefaultsAreTheServices(t *testing.T) {
	raw, err := os.ReadFile("../../charts/eventapi/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Config   map[string]any `json:"config"`
		Webhooks map[string]any `json:"webhooks"`
	}
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.FromEnv(func(name string) string {
		if name == "EVENTAPI_DATABASE_URL" {
			return "postgres://u@h/db"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		section map[string]any
		key     string
		service any
	}{
		{values.Config, "logLevel", cfg.LogLevel},
		{values.Config, "rateWindow", cfg.RateWindow},
		{values.Config, "v1RateLimit", cfg.V1RateLimit},
		{values.Config, "v2RateLimit", cfg.V2RateLimit},
		{values.Config, "dbMaxConns", cfg.DBMaxConns},
		{values.Config, "drainDelay", cfg.DrainDelay},
		{values.Config, "shutdownTimeout", cfg.ShutdownTimeout},
		{values.Config, "requestTimeout", cfg.RequestTimeout},
		// Zero in the configuration: the request log applies its own.
		{values.Config, "requestLogRetention", orZero(cfg.RequestLogRetention, requestlog.DefaultRetention)},
		{values.Config, "requestLogBuffer", orZero(cfg.RequestLogBuffer, requestlog.DefaultBuffer)},
		{values.Config, "requestLogFlushInterval", orZero(cfg.RequestLogFlushInterval, requestlog.DefaultInterval)},
		{values.Webhooks, "workers", cfg.Webhook.Workers},
		{values.Webhooks, "endpointConcurrency", cfg.Webhook.EndpointConcurrency},
		{values.Webhooks, "pollInterval", cfg.Webhook.PollInterval},
		{values.Webhooks, "allowPrivate", cfg.Webhook.AllowPrivate},
	} {
		chart, ok := tc.section[tc.key]
		if !ok {
			t.Errorf("values.yaml has no %s", tc.key)
			continue
		}
		if got := chartValue(t, chart, tc.service); got != tc.service {
			t.Errorf("values.yaml's %s is %v, the service's default %v", tc.key, chart, tc.service)
		}
	}
}

// orZero is def when v is zero, else v.
func orZero[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// chartValue reads a values.yaml value as the type of the service's.
func chartValue(t *testing.T, v, like any) any {
	t.Helper()
	switch like.(type) {
	case time.Duration:
		d, err := time.ParseDuration(v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return d
	case int:
		f, ok := v.(float64)
		if !ok {
			n, err := strconv.Atoi(v.(string))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		return int(f)
	}
	return v
}

package telemetry

import (
	"strings"
	"testing"
)

// TestCheckEnv: every OTEL_* value this build would misread is refused,
// naming the variable; good and unset values pass; several problems are
// said together, and the general protocol's once although both signals
// read it.
func TestCheckEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string // substrings of the error, in order; none: no error
	}{
		{"nothing set", nil, nil},
		{"good values", map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example.com/v1/traces",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1",
			"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none", "OTEL_METRIC_EXPORT_INTERVAL": "15000",
		}, nil},
		{"sampler names are read as the SDK reads them", map[string]string{"OTEL_TRACES_SAMPLER": " TraceIDRatio ", "OTEL_TRACES_SAMPLER_ARG": "1"}, nil},
		{"a ratio sampler without its argument", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio"}, nil},
		{"a sampler that takes no argument ignores it", map[string]string{"OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "lots"}, nil},
		{"host and port without a scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:4318"}, []string{`OTEL_EXPORTER_OTLP_ENDPOINT="127.0.0.1:4318": must be an http:// or https:// URL`}},
		{"a name and port read as a scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, []string{`OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"`}},
		{"no host", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http:///v1/metrics"}, []string{`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT="http:///v1/metrics"`}},
		{"another scheme", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://collector:4317"}, []string{`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="grpc://collector:4317"`}},
		{"not a URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "::not a url"}, []string{`OTEL_EXPORTER_OTLP_ENDPOINT="::not a url"`}},
		{"a bad protocol without an endpoint", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, []string{"OTEL_EXPORTER_OTLP_PROTOCOL=http/json is not supported"}},
		{"a signal's own bad protocol", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "grcp"}, []string{`OTEL_EXPORTER_OTLP_METRICS_PROTOCOL="grcp"`}},
		{"an unknown sampler", map[string]string{"OTEL_TRACES_SAMPLER": "bogus"}, []string{`OTEL_TRACES_SAMPLER="bogus": must be always_on`}},
		{"a ratio over 1", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "10"}, []string{`OTEL_TRACES_SAMPLER_ARG="10": the traceidratio sampler's ratio must be a number from 0 to 1`}},
		{"a ratio that is not a number", map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "10%"}, []string{`OTEL_TRACES_SAMPLER_ARG="10%"`}},
		{"a NaN ratio", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "NaN"}, []string{`OTEL_TRACES_SAMPLER_ARG="NaN"`}},
		{"an exporter this build lacks", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, []string{`OTEL_TRACES_EXPORTER="console": must be otlp or none`}},
		{"a fractional interval", map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "1.5"}, []string{`OTEL_METRIC_EXPORT_INTERVAL="1.5"`}},
		{"a zero interval", map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "0"}, []string{`OTEL_METRIC_EXPORT_INTERVAL="0"`}},
		{"every problem at once, the general protocol's once", map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "bogus", "OTEL_TRACES_SAMPLER": "sometimes",
		}, []string{`OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"`, `OTEL_EXPORTER_OTLP_PROTOCOL="bogus"`, `OTEL_TRACES_SAMPLER="sometimes"`}},
	} {
		err := CheckEnv(func(k string) string { return tc.env[k] })
		if len(tc.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v, want no error", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
			continue
		}
		msg := err.Error()
		if lines := strings.Count(msg, "\n") + 1; lines != len(tc.want) {
			t.Errorf("%s: %d problems said, want %d:\n%s", tc.name, lines, len(tc.want), msg)
		}
		rest := msg
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: error %q lacks %q (or not in order)", tc.name, msg, w)
				break
			}
			rest = rest[i+len(w):]
		}
	}
}

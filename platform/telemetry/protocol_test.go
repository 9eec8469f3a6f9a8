package telemetry

import (
	"strings"
	"testing"
)

// TestOTLPProtocol: the signal's own variable wins over the general one;
// unset means http/protobuf; http/json and anything else are refused,
// naming the variable that holds the value.
func TestOTLPProtocol(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{"unset", nil, protoHTTP, ""},
		{"general grpc", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, protoGRPC, ""},
		{"general http/protobuf", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, protoHTTP, ""},
		{"the signal's own wins", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, protoHTTP, ""},
		{"http/json", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json is not supported"},
		{"a typo", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grcp"}, "", `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grcp": must be grpc or http/protobuf`},
		{"another signal's own is not read", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "bogus"}, protoHTTP, ""},
	} {
		got, err := otlpProtocol(func(k string) string { return tc.env[k] }, "TRACES")
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

package telemetry

import (
	"fmt"
	"strings"
)

// OTLP transports this build exports over: OTEL_EXPORTER_OTLP_PROTOCOL
// values. http/json, which the specification allows an SDK to offer, is
// not among them: the Go exporters send protobuf only.
const (
	protoGRPC = "grpc"
	protoHTTP = "http/protobuf"
)

// otlpProtocol is the OTLP transport of one signal ("TRACES", "METRICS"):
// OTEL_EXPORTER_OTLP_<signal>_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL,
// else http/protobuf (the specification's default). Any other value is an
// error at start: read as the default, a mistyped "grpc" sent protobuf
// over HTTP to a gRPC port and every export failed, one log line a minute.
func otlpProtocol(getenv func(string) string, signal string) (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	v := getenv(name)
	if v == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		v = getenv(name)
	}
	switch strings.TrimSpace(v) {
	case "", protoHTTP:
		return protoHTTP, nil
	case protoGRPC:
		return protoGRPC, nil
	case "http/json":
		return "", fmt.Errorf("%s=http/json is not supported: use http/protobuf (the default) or grpc", name)
	}
	return "", fmt.Errorf("%s=%q: must be grpc or http/protobuf", name, v)
}

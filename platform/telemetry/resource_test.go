package telemetry

import (
	"context"
	"os"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// TestServiceResourceNamesTheInstance: every pod's telemetry carries an
// instance of its own and the host's name, so that a metrics backend
// keeps each pod's counters apart; OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME still win.
func TestServiceResourceNamesTheInstance(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, attrs, serviceName string
		want                     map[attribute.Key]string
	}{
		{"defaults", "", "", map[attribute.Key]string{
			semconv.ServiceNameKey: "eventapi-test", semconv.ServiceInstanceIDKey: instanceID, semconv.HostNameKey: host}},
		{"the environment wins", "service.instance.id=pod-7,host.name=node-3", "renamed", map[attribute.Key]string{
			semconv.ServiceNameKey: "renamed", semconv.ServiceInstanceIDKey: "pod-7", semconv.HostNameKey: "node-3"}},
		{"a stray comma in the environment", "service.instance.id=pod-7,host.name=node-3,", "renamed", map[attribute.Key]string{
			semconv.ServiceNameKey: "renamed", semconv.ServiceInstanceIDKey: "pod-7", semconv.HostNameKey: "node-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tc.attrs)
			t.Setenv("OTEL_SERVICE_NAME", tc.serviceName)
			res := serviceResource(context.Background(), "eventapi-test")
			for k, want := range tc.want {
				if got, ok := res.Set().Value(k); !ok || got.AsString() != want {
					t.Errorf("%s = %q (set %v), want %q", k, got.AsString(), ok, want)
				}
			}
		})
	}
	if instanceID == "" {
		t.Error("no instance id")
	}
}

package telemetry

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CheckEnv reports every OTEL_* setting this build would misread, in one
// error: an OTLP endpoint that is not an http or https URL with a host, a
// protocol other than grpc or http/protobuf, a header list with an entry
// the exporters cannot read (named by header name or position, never by
// value: see otlpHeaderVars), a sampler the Go SDK does not build, a ratio
// sampler's argument outside [0, 1], an exporter other than otlp or none,
// an export interval that is not a positive number of milliseconds. Each
// is checked when set, whether or not anything is exported: left to the
// SDK, a malformed endpoint ("collector:4318", no scheme) is logged once as
// "parse url" and the spans go to https://localhost:4318; a bad sampler
// becomes the default with a warning; a bad interval becomes a minute; a
// header entry it cannot read is logged with its text (often the vendor's
// token) and dropped. Empty values are unset, as the SDK reads them.
func CheckEnv(getenv func(string) string) error {
	var errs []error
	for _, signal := range []string{"", "TRACES_", "METRICS_"} {
		name := "OTEL_EXPORTER_OTLP_" + signal + "ENDPOINT"
		if v := getenv(name); v != "" {
			if err := checkEndpoint(v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %v", name, v, err))
			}
		}
	}
	// Both signals fall back to the general protocol: its problem is said
	// once.
	var protocolErr error
	for _, signal := range []string{"TRACES", "METRICS"} {
		if _, err := otlpProtocol(getenv, signal); err != nil && (protocolErr == nil || err.Error() != protocolErr.Error()) {
			protocolErr = err
			errs = append(errs, err)
		}
	}
	errs = append(errs, checkHeaderLists(getenv)...)
	if err := checkSampler(getenv); err != nil {
		errs = append(errs, err)
	}
	for _, name := range []string{"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER"} {
		switch v := strings.TrimSpace(getenv(name)); v {
		case "", "otlp", "none":
		default:
			errs = append(errs, fmt.Errorf("%s=%q: must be otlp or none", name, v))
		}
	}
	if v := getenv("OTEL_METRIC_EXPORT_INTERVAL"); v != "" {
		if ms, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || ms <= 0 {
			errs = append(errs, fmt.Errorf("OTEL_METRIC_EXPORT_INTERVAL=%q: must be a positive whole number of milliseconds", v))
		}
	}
	return errors.Join(errs...)
}

// checkEndpoint says why v is not an OTLP endpoint the exporters can use:
// an absolute http or https URL with a host (the scheme says whether the
// connection is TLS, for grpc too).
func checkEndpoint(v string) error {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL with a host, for example http://otel-collector:4318")
	}
	return nil
}

// Samplers the Go SDK builds from OTEL_TRACES_SAMPLER; the ratio ones read
// OTEL_TRACES_SAMPLER_ARG.
var samplers = map[string]bool{
	"always_on": false, "always_off": false, "parentbased_always_on": false, "parentbased_always_off": false,
	"traceidratio": true, "parentbased_traceidratio": true,
}

func checkSampler(getenv func(string) string) error {
	name := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER"))
	if name == "" {
		return nil
	}
	ratio, known := samplers[strings.ToLower(name)]
	if !known {
		return fmt.Errorf("OTEL_TRACES_SAMPLER=%q: must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio", name)
	}
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	if !ratio || arg == "" {
		return nil
	}
	if f, err := strconv.ParseFloat(arg, 64); err != nil || !(f >= 0 && f <= 1) {
		return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: the %s sampler's ratio must be a number from 0 to 1", arg, name)
	}
	return nil
}

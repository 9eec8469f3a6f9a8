package telemetry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Flush runs shutdowns (the tracer's and the meter's: their last spans and
// their last OTLP metrics push) at the same time and returns once all of
// them have returned or budget has passed, whichever comes first. A
// collector that accepts connections and never answers would otherwise
// hold a stopping process for the SDK's own export timeout (30 s for
// metrics by default, OTEL_METRIC_EXPORT_TIMEOUT), past the grace period
// the chart computes (docs/helm.md, terminationGracePeriodSeconds). Each
// shutdown gets a context that ends with the budget; one that ignores it is
// left running, since the process is about to exit. The error joins the
// shutdowns' own (a failed export) and says when the budget ran out.
func Flush(ctx context.Context, budget time.Duration, shutdowns ...Shutdown) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	results := make(chan error, len(shutdowns))
	for _, shutdown := range shutdowns {
		go func() { results <- shutdown(ctx) }()
	}
	var errs []error
	for range shutdowns {
		select {
		case err := <-results:
			errs = append(errs, err)
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("telemetry flush gave up after %s: the collector did not answer", budget))
			return errors.Join(errs...)
		}
	}
	return errors.Join(errs...)
}

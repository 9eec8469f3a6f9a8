package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
)

// Backoff of the start's retries while the database is unreachable.
const (
	startRetryFirst = time.Second
	startRetryMost  = 10 * time.Second
)

// untilReachable runs start until it succeeds, fails for a reason other
// than an unreachable database, or ctx ends (SIGTERM). A pod that starts
// while PostgreSQL or PgBouncer restarts waits for it, logging each
// failure, instead of exiting at once into a crash loop whose back-off
// outlasts the outage; Kubernetes' startup probe still bounds the wait
// (docs/helm.md). Any failure to connect is retried, a refused login too
// (each failure is logged with its cause); a schema that needs migrating
// ends serve at once.
func untilReachable(ctx context.Context, log *slog.Logger, start func() error) error {
	return untilReachableEvery(ctx, log, startRetryFirst, startRetryMost, start)
}

// untilReachableEvery is untilReachable waiting first after the first
// failure, doubling up to most.
func untilReachableEvery(ctx context.Context, log *slog.Logger, first, most time.Duration, start func() error) error {
	wait := first
	for {
		err := start()
		if err == nil || !errs.Is(database.Error(err), errs.ServiceUnavailable) {
			return err
		}
		log.Warn("eventapi starting: the database is unreachable; retrying", "retry_in", wait.String(), "error", err.Error())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, most)
	}
}

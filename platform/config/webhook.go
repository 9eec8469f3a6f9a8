package config

import (
	"fmt"
	"strconv"
	"time"

	"github.com/eventapi/eventapi/platform/webhook"
)

// Webhook tunes webhook delivery (docs/webhooks.md).
type Webhook struct {
	// Workers is how many deliveries one process sends at once
	// (EVENTAPI_WEBHOOK_WORKERS, default 4; 0 turns delivery off in this
	// process, registration still works).
	Workers int
	// AllowPrivate accepts http URLs and private, loopback and other
	// non-public addresses (EVENTAPI_WEBHOOK_ALLOW_PRIVATE, default false:
	// development and tests only).
	AllowPrivate bool
	// PollInterval is how often an idle worker fans new changes out into
	// deliveries and looks for due ones (EVENTAPI_WEBHOOK_POLL_INTERVAL,
	// default 1s).
	PollInterval time.Duration
	// Timeout bounds one attempt (EVENTAPI_WEBHOOK_TIMEOUT, default 10s).
	Timeout time.Duration
	// Lease is how long a claim holds a delivery (EVENTAPI_WEBHOOK_LEASE,
	// default Timeout + 5s; must exceed Timeout). A delivery whose pod
	// died is claimed again after it.
	Lease time.Duration
	// EndpointConcurrency caps the deliveries in flight to one endpoint
	// across all processes (EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY, default 4).
	EndpointConcurrency int
	// BackoffBase is the first retry's longest wait; it doubles per failure
	// (EVENTAPI_WEBHOOK_BACKOFF_BASE, default 5s).
	BackoffBase time.Duration
	// BackoffMax caps the wait (EVENTAPI_WEBHOOK_BACKOFF_MAX, default 12h).
	BackoffMax time.Duration
	// RetryFor is how long a failing delivery is retried from its first
	// failure before it fails and its endpoint is disabled
	// (EVENTAPI_WEBHOOK_RETRY_FOR, default 72h).
	RetryFor time.Duration
}

func webhookSettings(getenv Getenv, errs *[]error) Webhook {
	w := Webhook{Workers: 4}
	if v := getenv("EVENTAPI_WEBHOOK_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			*errs = append(*errs, fmt.Errorf("EVENTAPI_WEBHOOK_WORKERS %q must be 0 or a positive integer", v))
		} else {
			w.Workers = n
		}
	}
	if v := getenv("EVENTAPI_WEBHOOK_ALLOW_PRIVATE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("EVENTAPI_WEBHOOK_ALLOW_PRIVATE %q must be true or false", v))
		}
		w.AllowPrivate = b
	}
	w.PollInterval = duration(getenv, "EVENTAPI_WEBHOOK_POLL_INTERVAL", time.Second, errs)
	w.Timeout = duration(getenv, "EVENTAPI_WEBHOOK_TIMEOUT", 10*time.Second, errs)
	w.Lease = duration(getenv, "EVENTAPI_WEBHOOK_LEASE", w.Timeout+5*time.Second, errs)
	if w.Lease <= w.Timeout {
		*errs = append(*errs, fmt.Errorf("EVENTAPI_WEBHOOK_LEASE %v must exceed EVENTAPI_WEBHOOK_TIMEOUT %v", w.Lease, w.Timeout))
	}
	w.EndpointConcurrency = positiveInt(getenv, "EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY", 4, errs)
	w.BackoffBase = duration(getenv, "EVENTAPI_WEBHOOK_BACKOFF_BASE", webhook.DefaultBackoff.Base, errs)
	w.BackoffMax = duration(getenv, "EVENTAPI_WEBHOOK_BACKOFF_MAX", webhook.DefaultBackoff.Max, errs)
	w.RetryFor = duration(getenv, "EVENTAPI_WEBHOOK_RETRY_FOR", webhook.DefaultBackoff.RetryFor, errs)
	return w
}

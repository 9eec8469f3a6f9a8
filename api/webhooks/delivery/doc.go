// Package delivery is the webhook worker that runs in every `eventapi
// serve` process (docs/webhooks.md): it claims due deliveries from the
// shared queue (FOR UPDATE SKIP LOCKED with a lease, at most a few in
// flight per endpoint), renders the change as GET renders the record, signs
// the message per Standard Webhooks, POSTs it through a client that refuses
// non-public addresses at dial time, and records the attempt: success, a
// retry with exponential backoff and full jitter, or, after the retry
// window, failure and the endpoint disabled.
package delivery

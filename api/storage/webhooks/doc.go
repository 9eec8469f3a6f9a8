// Package webhooks stores an organization's webhook endpoints, their
// deliveries and every delivery attempt, and holds the delivery queue's
// claim and completion statements (docs/webhooks.md). FanOut creates the
// deliveries from the change feed, following each endpoint's cursor; the
// rest reads, claims, completes and retries them. The queue's statements
// span organizations on purpose and say so in their opening comment.
package webhooks

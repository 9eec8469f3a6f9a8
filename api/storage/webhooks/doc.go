// Package webhooks stores an organization's webhook endpoints, their
// deliveries and every delivery attempt, and holds the delivery queue's
// claim and completion statements (docs/webhooks.md). Deliveries are
// created by a trigger on changes, in the writing transaction; this package
// only reads, claims, completes and retries them. The queue's statements
// span organizations on purpose and say so in their opening comment.
package webhooks

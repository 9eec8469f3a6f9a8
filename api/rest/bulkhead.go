package rest

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"golang.org/x/sync/semaphore"

	"github.com/eventapi/eventapi/platform/errs"
)

// Bulkhead bounds how many large responses (a pick list with its items and
// their equipment: thousands of rows and a JSON body of a megabyte) one
// process builds at once. Each in flight holds its rows, its encoder buffer
// and its body; on two cores sixteen at once take no less time in all than
// four, but hold four times the memory. The rest wait for a slot, up to
// MaxWait, then answer 503 service_unavailable with Retry-After
// (docs/architecture.md, "Memory").
type Bulkhead struct {
	slots   *semaphore.Weighted
	maxWait time.Duration
	waiting atomic.Int64
}

// DefaultBulkheadWait is how long a large read waits for a slot.
const DefaultBulkheadWait = 10 * time.Second

// NewBulkhead returns a bulkhead of slots concurrent builds whose waiters
// give up after maxWait.
func NewBulkhead(slots int, maxWait time.Duration) *Bulkhead {
	// The gauge is on /metrics from the start, at 0, not from the first
	// wait: a panel or an alert over a series that does not exist sees
	// nothing.
	queuedCounter.Add(context.Background(), 0)
	return &Bulkhead{slots: semaphore.NewWeighted(int64(max(slots, 1))), maxWait: maxWait}
}

var queuedCounter metric.Int64UpDownCounter

func init() {
	queuedCounter, _ = otel.Meter("github.com/eventapi/eventapi/api/rest").Int64UpDownCounter(
		"eventapi.large_reads.waiting",
		metric.WithDescription("Large reads waiting for a slot of the process's bulkhead."),
		metric.WithUnit("{request}"))
}

// Run calls build while holding a slot. A nil Bulkhead, or a ctx that
// already holds one of its slots (Hold), runs build at once.
func (b *Bulkhead) Run(ctx context.Context, build func() error) error {
	if b == nil || ctx.Value(heldSlot{b}) != nil {
		return build()
	}
	_, release, err := b.Hold(ctx)
	if err != nil {
		return err
	}
	defer release()
	return build()
}

// heldSlot marks a context whose request holds a slot of the bulkhead.
type heldSlot struct{ b *Bulkhead }

// Hold takes a slot for the rest of a request, waiting as Run does, and
// returns ctx marked with it, so that a Run under that ctx builds at once,
// and release, which gives the slot back. A write whose handler answers
// under Run takes its slot this way before the Idempotency-Key middleware
// opens the request's transaction (docs/architecture.md, "Memory"):
// waiting for a slot inside that transaction held a pool connection, and
// enough such waiters left the slot holders no connection to finish with,
// so the pod stalled until every waiter gave up. A nil Bulkhead holds
// nothing.
func (b *Bulkhead) Hold(ctx context.Context) (context.Context, func(), error) {
	if b == nil {
		return ctx, func() {}, nil
	}
	if !b.slots.TryAcquire(1) {
		if err := b.wait(ctx); err != nil {
			return ctx, nil, err
		}
	}
	return context.WithValue(ctx, heldSlot{b}, true), func() { b.slots.Release(1) }, nil
}

func (b *Bulkhead) wait(ctx context.Context) error {
	b.waiting.Add(1)
	queuedCounter.Add(ctx, 1)
	defer func() {
		b.waiting.Add(-1)
		queuedCounter.Add(ctx, -1)
	}()
	ctx, cancel := context.WithTimeout(ctx, b.maxWait)
	defer cancel()
	if err := b.slots.Acquire(ctx, 1); err != nil {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "too many large reads in progress; retry shortly",
			RetryAfter: 1, Cause: err}
	}
	return nil
}

// Waiting is how many calls of Run are waiting for a slot now.
func (b *Bulkhead) Waiting() int64 { return b.waiting.Load() }

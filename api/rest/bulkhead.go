package rest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"golang.org/x/sync/semaphore"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Bulkhead bounds how many large responses (a pick list with its items and
// their equipment: thousands of rows and a JSON body of a megabyte) one
// process builds at once. Each in flight holds its rows, its encoder buffer
// and its body; on two cores sixteen at once take no less time in all than
// four, but hold four times the memory. The rest wait for a slot, up to
// MaxWait, then answer 503 service_unavailable with Retry-After
// (docs/architecture.md, "Memory").
//
// One organization, with its sandbox, holds at most all the slots but one
// (PerOrganization):
// its slow large reads wait for each other, never for the last slot, which
// stays for the other organizations while it is the only busy one (two
// busy organizations can still hold every slot between them: this stops
// one noisy tenant, it is not a fair queue). A review saw six slow change-feed
// pages of one tenant take every slot of a pod, and another tenant's quote
// answered 503 after waiting ten seconds.
type Bulkhead struct {
	slots   *semaphore.Weighted
	size    int64
	perOrg  int64
	maxWait time.Duration
	waiting atomic.Int64

	mu   sync.Mutex
	orgs map[uuid.UUID]*orgShare
}

// orgShare is one organization's part of the slots, kept while a request
// of it holds or waits for a slot.
type orgShare struct {
	slots *semaphore.Weighted
	users int
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
	slots = max(slots, 1)
	return &Bulkhead{slots: semaphore.NewWeighted(int64(slots)), size: int64(slots), perOrg: PerOrganization(slots), maxWait: maxWait,
		orgs: map[uuid.UUID]*orgShare{}}
}

// PerOrganization is how many of a bulkhead's slots one organization may
// hold at once: all but one, or the one there is.
func PerOrganization(slots int) int64 { return int64(max(slots-1, 1)) }

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
// nothing. The request's tenant (the organization owning ctx's key, its
// sandbox's requests included) first takes its share (PerOrganization); a ctx without one, or a bulkhead of one slot,
// takes a slot only.
func (b *Bulkhead) Hold(ctx context.Context) (context.Context, func(), error) {
	if b == nil {
		return ctx, func() {}, nil
	}
	deadline := time.Now().Add(b.maxWait)
	leave := func() {}
	if p, ok := tenancy.FromContext(ctx); ok && b.perOrg < b.size {
		share, left := b.share(tenant(p))
		if err := b.take(ctx, share, deadline); err != nil {
			left()
			return ctx, nil, err
		}
		leave = func() { share.Release(1); left() }
	}
	if err := b.take(ctx, b.slots, deadline); err != nil {
		leave()
		return ctx, nil, err
	}
	return context.WithValue(ctx, heldSlot{b}, true), func() { b.slots.Release(1); leave() }, nil
}

// tenant is whose share a request takes: the organization that owns its
// key, so that a tenant's live and test keys (its sandbox) share one.
func tenant(p *tenancy.Principal) uuid.UUID {
	if p.HomeOrganizationID != uuid.Nil {
		return p.HomeOrganizationID
	}
	return p.OrganizationID
}

// share returns org's share of the slots, and left, which the request
// calls once it neither holds nor waits for it.
func (b *Bulkhead) share(org uuid.UUID) (*semaphore.Weighted, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.orgs[org]
	if s == nil {
		s = &orgShare{slots: semaphore.NewWeighted(b.perOrg)}
		b.orgs[org] = s
	}
	s.users++
	return s.slots, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if s.users--; s.users == 0 {
			delete(b.orgs, org)
		}
	}
}

// take acquires one of sem, waiting until deadline at most.
func (b *Bulkhead) take(ctx context.Context, sem *semaphore.Weighted, deadline time.Time) error {
	if sem.TryAcquire(1) {
		return nil
	}
	b.waiting.Add(1)
	queuedCounter.Add(ctx, 1)
	defer func() {
		b.waiting.Add(-1)
		queuedCounter.Add(ctx, -1)
	}()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if err := sem.Acquire(ctx, 1); err != nil {
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "too many large reads in progress; retry shortly",
			RetryAfter: 1, Cause: err}
	}
	return nil
}

// Waiting is how many calls of Run are waiting for a slot now.
func (b *Bulkhead) Waiting() int64 { return b.waiting.Load() }

// Package bulkhead bounds how much of a process's work of one kind runs at
// once: the large reads (their rows, encoder buffers and bodies held in
// memory) and the writes (each holding a database connection), sharing
// the slots fairly among organizations. It knows nothing of HTTP: api/rest
// runs a large answer under Env.LargeReads (Slots.Run), and api/server
// takes a write's slot for the whole request (Slots.Hold)
// (docs/architecture.md, "Memory").
package bulkhead

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Slots bounds how many large responses (a pick list with its items and
// their equipment: thousands of rows and a JSON body of a megabyte) one
// process builds at once. Each in flight holds its rows, its encoder buffer
// and its body; on two cores sixteen at once take no less time in all than
// four, but hold four times the memory. The rest wait for a slot, up to
// MaxWait, then answer 503 service_unavailable with Retry-After
// (docs/architecture.md, "Memory").
//
// One organization, with its sandbox, holds at most all the slots but one
// (PerOrganization): its slow large reads wait for each other, never for
// the last slot, which stays for the other organizations while it is the
// only busy one: without the cap, six slow change-feed pages of one tenant
// could take every slot of a pod, and another tenant's quote answer 503
// after waiting ten seconds. The slots are also shared fairly among
// busy tenants (fairSlots): a slot that frees goes to the waiting tenant
// holding the fewest.
type Slots struct {
	slots   *fairSlots
	maxWait time.Duration
	waiting atomic.Int64
	// queued is the gauge of the requests waiting, and busy the message
	// of the 503 of one that waited maxWait.
	queued metric.Int64UpDownCounter
	busy   string
}

// DefaultWait is how long a large read waits for a slot.
const DefaultWait = 10 * time.Second

// New returns a bulkhead of slots concurrent builds whose waiters
// give up after maxWait.
func New(slots int, maxWait time.Duration) *Slots {
	slots = max(slots, 1)
	return newSlots(slots, PerOrganization(slots), maxWait, largeReadsQueued, "too many large reads in progress; retry shortly")
}

// NewWrites returns the bulkhead of a process's writes, for a
// database pool of pool connections: WriteSlots(pool) slots, one
// organization, with its sandbox, holding at most
// WritesPerOrganization(pool) of them at once; the rest wait, fairly shared
// as large reads are, up to maxWait, then answer 503. A write holds
// a pool connection from its transaction's start to its end, and may spend
// it waiting for a row lock (the stock guard's equipment row): without a
// bound, one organization's burst of 990 reservation writes on one item
// could leave 18 or 19 of a pod's 20 connections waiting on that lock, and
// another organization's simple reads go from 10 ms to a second. The
// connections the writes never take stay for reads and the pod's
// background work however many organizations write; the share keeps write
// slots for the other organizations while one is busy (docs/architecture.md,
// "Memory").
func NewWrites(pool int, maxWait time.Duration) *Slots {
	return newSlots(WriteSlots(pool), WritesPerOrganization(pool), maxWait, writesQueued,
		"too many writes in progress on this instance; retry shortly")
}

func newSlots(slots int, perOrg int64, maxWait time.Duration, queued metric.Int64UpDownCounter, busy string) *Slots {
	// The gauge is on /metrics from the start, at 0, not from the first
	// wait: a panel or an alert over a series that does not exist sees
	// nothing.
	queued.Add(context.Background(), 0)
	return &Slots{slots: newFairSlots(int64(slots), perOrg), maxWait: maxWait, queued: queued, busy: busy}
}

// PerOrganization is how many of a large-read bulkhead's slots one
// organization may hold at once: all but one, or the one there is.
func PerOrganization(slots int) int64 { return int64(max(slots-1, 1)) }

// WriteSlots is how many writes a process with a pool of pool connections
// runs at once: all but a quarter (at least one) of the connections, and
// at least one write.
func WriteSlots(pool int) int { return max(pool-max(pool/4, 1), 1) }

// WritesPerOrganization is how many of those one organization may hold at
// once: all but a quarter (at least one) of them, and at least one.
func WritesPerOrganization(pool int) int64 {
	slots := WriteSlots(pool)
	return int64(max(slots-max(slots/4, 1), 1))
}

var largeReadsQueued, writesQueued metric.Int64UpDownCounter

func init() {
	// The meter keeps the name of api/rest, where the bulkhead was first:
	// the instruments' scope, which OTLP exports, did not change with the
	// move to this package.
	m := otel.Meter("github.com/eventapi/eventapi/api/rest")
	largeReadsQueued, _ = m.Int64UpDownCounter("eventapi.large_reads.waiting",
		metric.WithDescription("Large reads waiting for a slot of the process's bulkhead."),
		metric.WithUnit("{request}"))
	writesQueued, _ = m.Int64UpDownCounter("eventapi.writes.waiting",
		metric.WithDescription("Writes waiting for a slot of the process's write bulkhead: their organization holds its share of the database pool."),
		metric.WithUnit("{request}"))
}

// Run calls build while holding a slot. A nil *Slots, or a ctx that
// already holds one of its slots (Hold), runs build at once.
func (b *Slots) Run(ctx context.Context, build func() error) error {
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
type heldSlot struct{ b *Slots }

// Hold takes a slot for the rest of a request, waiting as Run does, and
// returns ctx marked with it, so that a Run under that ctx builds at once,
// and release, which gives the slot back. A write whose handler answers
// under Run takes its slot this way before the Idempotency-Key middleware
// opens the request's transaction (docs/architecture.md, "Memory"):
// waiting for a slot inside that transaction would hold a pool connection,
// and enough such waiters would leave the slot holders no connection to
// finish with, stalling the pod until every waiter gave up. A nil *Slots
// holds nothing. The slot is the request's tenant's (the organization owning
// ctx's key, its sandbox's requests included), within its share
// (PerOrganization); a ctx without one waits in a line of its own.
func (b *Slots) Hold(ctx context.Context) (context.Context, func(), error) {
	if b == nil {
		return ctx, func() {}, nil
	}
	var who uuid.UUID
	if p, ok := tenancy.FromContext(ctx); ok {
		who = shareOwner(p)
	}
	wait, cancel := context.WithTimeout(ctx, b.maxWait)
	defer cancel()
	queued := false
	err := b.slots.acquire(wait, who, func() {
		queued = true
		b.waiting.Add(1)
		b.queued.Add(ctx, 1)
	})
	if queued {
		b.waiting.Add(-1)
		b.queued.Add(ctx, -1)
	}
	if err != nil {
		return ctx, nil, &errs.Error{Code: errs.ServiceUnavailable, Message: b.busy, Cause: err}
	}
	return context.WithValue(ctx, heldSlot{b}, true), func() { b.slots.release(who) }, nil
}

// TryHold is Hold without the wait: it takes a slot if one is free for the
// request's tenant now and reports whether it did. A nil *Slots holds
// nothing and always succeeds.
func (b *Slots) TryHold(ctx context.Context) (context.Context, func(), bool) {
	if b == nil {
		return ctx, func() {}, true
	}
	var who uuid.UUID
	if p, ok := tenancy.FromContext(ctx); ok {
		who = shareOwner(p)
	}
	if !b.slots.tryAcquire(who) {
		return ctx, nil, false
	}
	return context.WithValue(ctx, heldSlot{b}, true), func() { b.slots.release(who) }, true
}

// shareOwner is whose share a request takes: the organization that owns
// its key (its home organization, not the sandbox a test key acts for), so
// that a tenant's live and test keys share one.
func shareOwner(p *tenancy.Principal) uuid.UUID {
	if p.HomeOrganizationID != uuid.Nil {
		return p.HomeOrganizationID
	}
	return p.OrganizationID
}

// Waiting is how many calls of Run are waiting for a slot now.
func (b *Slots) Waiting() int64 { return b.waiting.Load() }

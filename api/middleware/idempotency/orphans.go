package idempotency

import (
	"context"
	"sync"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
)

// orphans releases the in-progress markers of claims that failed. A claim
// that timed out against a stalled Redis may still run once Redis answers
// again (it waited in a pooled connection's socket): it then leaves a
// marker that no request owns, and every retry of the key got 409
// idempotency_key_in_use until the marker expired (LockTTL, 30 s), for a
// request that was refused with 503 and never executed.
//
// One goroutine per middleware tries DeleteIf(name, marker) for each such
// marker every orphanEvery, until two attempts have been answered (the
// second one orphanEvery after the first, so that a claim that waited in
// another connection and runs after the first release is taken back too)
// or the marker would have expired anyway. While Redis does not answer, a
// stalled claim may still run later and its marker live its TTL from then,
// so every pass that Redis did not answer moves each marker's expiry to a
// TTL from then, up to maxOrphanWait after its claim failed; such a pass
// stops at its first unanswered attempt instead of waiting out one timeout
// per marker. At most maxOrphans wait; beyond that, a marker is left to its
// TTL.
type orphans struct {
	store edge.Store
	ttl   time.Duration
	every time.Duration
	// log records a failed attempt (the middleware's upkeep log: a
	// release refuses no request).
	log func(ctx context.Context, err error)
	// start runs the releaser's goroutine under the middleware's
	// background context (background.start), and reports whether it did:
	// once the middleware is closed it does not.
	start func(run func(ctx context.Context)) bool

	mu      sync.Mutex
	pending map[string]*orphan // by name and marker: two failed claims of one key are two
	running bool
}

type orphan struct {
	name   string
	marker []byte
	// until is when the marker has surely expired; giveUp bounds it.
	until, giveUp time.Time
	released      int // DeleteIf attempts Redis answered
}

// orphanEvery is the pause between two release attempts.
var orphanEvery = time.Second

// maxOrphans bounds the markers waiting for release.
const maxOrphans = 10_000

// maxOrphanWait bounds how long a marker is waited for through a Redis
// that does not answer.
const maxOrphanWait = 10 * time.Minute

// add queues the marker of a claim of name that failed.
func (o *orphans) add(name string, marker []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == nil {
		o.pending = map[string]*orphan{}
	}
	if len(o.pending) >= maxOrphans {
		return
	}
	now := time.Now()
	o.pending[name+"\x00"+string(marker)] = &orphan{name: name, marker: marker, until: now.Add(o.ttl), giveUp: now.Add(maxOrphanWait)}
	if !o.running {
		o.running = o.start(o.run)
	}
}

// run releases the pending markers until none is left, or ctx ends (the
// middleware closes: the markers left then expire at their TTL).
func (o *orphans) run(ctx context.Context) {
	t := time.NewTicker(o.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !o.pass(ctx) {
			return
		}
	}
}

// pass makes one attempt for every pending marker, or stops at the first
// that Redis does not answer, and reports whether any is still pending
// (false: the goroutine has stopped). An attempt cut short by ctx's end is
// not logged.
func (o *orphans) pass(ctx context.Context) bool {
	o.mu.Lock()
	batch := make([]*orphan, 0, len(o.pending))
	for _, p := range o.pending {
		batch = append(batch, p)
	}
	o.mu.Unlock()
	now := time.Now()
	answered := true
	for _, p := range batch {
		if now.After(p.until) {
			continue
		}
		attempt, cancel := context.WithTimeout(ctx, o.every)
		err := o.store.DeleteIf(attempt, p.name, p.marker)
		if err != nil && ctx.Err() == nil {
			o.log(attempt, err)
		}
		cancel()
		if err != nil {
			answered = false
			break
		}
		p.released++
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, p := range o.pending {
		if p.released >= 2 || now.After(p.until) {
			delete(o.pending, k)
			continue
		}
		if !answered {
			p.until = laterUntil(p.until, now.Add(o.ttl), p.giveUp)
		}
	}
	if len(o.pending) == 0 {
		o.running = false
		return false
	}
	return true
}

// laterUntil is the later of until and next, but not after giveUp.
func laterUntil(until, next, giveUp time.Time) time.Time {
	if next.After(until) {
		until = next
	}
	if until.After(giveUp) {
		return giveUp
	}
	return until
}

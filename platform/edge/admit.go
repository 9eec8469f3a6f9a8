package edge

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Admissions of one process go to Redis one batch at a time: an Admit that
// finds no batch in flight sends its script after yielding its processor
// once, taking along the Admits that reached it meanwhile (lead; EVALSHA,
// one round trip, as before); the Admits that arrive while a batch is in
// flight wait for it and then go out together. On a single Redis the whole
// batch is one call of the script (slidingWindow in redis.go), which admits
// each of its keys in turn under one reading of the clock: one command to
// parse, one script to start and one TIME for all of them, where a pipeline
// of one script per admission paid each of those every time. On a Redis Cluster a
// script may only touch keys of one hash slot, so the batch is split into
// one call per window (calls, below), pipelined (go-redis sends each to its
// slot's master).
// Every call is atomic, so the window stays exact across pods. An admission
// waits at most for the batch in flight before its own, and never beyond its
// own timeout (the limiter then fails open, as before): the admissions that
// gather meanwhile share one deadline (pending, below). docs/edge.md, "Rate
// limits", has the measurements.

// maxScriptKeys bounds the admissions of one script call, so that a large
// batch holds Redis for a few hundred microseconds at a time rather than
// for the whole batch; the rest go out in further calls of the same
// pipeline.
const maxScriptKeys = 64

// admission is one Admit's place in a batch.
type admission struct {
	ctx    context.Context
	key    string
	window int64 // µs
	limit  int
	// now, count and reset are the script's reply: Redis's time, the
	// window's count after the call (-1 - count when refused) and the reset
	// minus now, microseconds.
	now, count, reset int64
	err               error
}

// pending is the batch that gathers while another is in flight. Its
// admissions share one deadline, one timer and one channel, instead of a
// timeout context and a channel each (a few µs of a request's CPU under
// load): the deadline is the limiter's timeout from the first admission's
// arrival, so none of them waits longer than its own timeout, and those
// that came later may fail open earlier, which only a Redis that is already
// slower than the timeout makes happen.
type pending struct {
	batch    []*admission
	deadline time.Time
	done     chan struct{} // closed once the batch's replies are in
	expired  chan struct{} // closed by timer at the deadline
	timer    *time.Timer
}

func newPending(timeout time.Duration) *pending {
	p := &pending{deadline: time.Now().Add(timeout), done: make(chan struct{}), expired: make(chan struct{})}
	p.timer = time.AfterFunc(timeout, func() { close(p.expired) })
	return p
}

// admitter holds the batch gathering while one is in flight.
type admitter struct {
	mu   sync.Mutex
	busy bool
	next *pending // nil: no admission waits
}

// Admit implements Store in one round trip of its own (EVALSHA; EVAL once
// after the script cache was flushed, for example by a Redis restart),
// batched with the process's concurrent admissions (above).
func (r *Redis) Admit(ctx context.Context, key string, limit int, window time.Duration) (Decision, error) {
	a := &admission{ctx: ctx, key: r.Key(WindowKey(key)), window: window.Microseconds(), limit: limit}

	r.admits.mu.Lock()
	if r.admits.busy {
		p := r.admits.next
		if p == nil {
			p = newPending(r.limiter)
			r.admits.next = p
		}
		p.batch = append(p.batch, a)
		r.admits.mu.Unlock()
		select {
		case <-p.done:
		case <-p.expired:
			return Decision{}, unavailable(context.DeadlineExceeded)
		case <-ctx.Done():
			return Decision{}, unavailable(ctx.Err())
		}
	} else {
		r.admits.busy = true
		r.admits.mu.Unlock()
		r.lead(ctx, a)
		// This request's reply is in: the admissions that queued meanwhile
		// go out on a goroutine of their own.
		if next := r.nextBatch(); next != nil {
			go r.drainAdmissions(next)
		}
	}
	if a.err != nil {
		return Decision{}, r.failed(a.err)
	}
	return a.decision(), nil
}

// lead sends a, the admission that found no batch in flight, with the
// admissions that were ready to run when it came. It first yields its
// processor once (runtime.Gosched): the goroutines already runnable run
// until they block, and those that reach Admit meanwhile queue behind a
// (busy is set) and go out in a's call instead of in one of their own.
// With nothing else runnable, as on an idle process, the yield returns at
// once; under load it trades a few microseconds of a's wait for fewer
// round trips: one script call per 4.6 admissions instead of 3.4 at
// catbench's full detail load, about 4% more requests served
// (docs/edge.md, "Rate limits"). The call runs until the earliest deadline
// of its admissions, a's (it came first); with others aboard it is sent as
// a gathered batch headed by a (send), so it does not stop when a's request
// is cancelled.
func (r *Redis) lead(ctx context.Context, a *admission) {
	deadline := time.Now().Add(r.limiter)
	runtime.Gosched()
	r.admits.mu.Lock()
	joined := r.admits.next
	r.admits.next = nil
	r.admits.mu.Unlock()
	if joined == nil {
		bctx, cancel := context.WithDeadline(ctx, deadline)
		r.admitBatch(bctx, []*admission{a})
		cancel()
		return
	}
	joined.batch = append([]*admission{a}, joined.batch...)
	joined.deadline = deadline
	r.send(joined)
}

// decision turns the script's reply into a Decision.
func (a *admission) decision() Decision {
	count, allowed := a.count, a.count >= 0
	if !allowed {
		count = -1 - a.count
	}
	d := Decision{Allowed: allowed, Limit: a.limit, Remaining: max(0, a.limit-int(count)),
		Reset: time.UnixMicro(a.now + a.reset).UTC()}
	if !allowed {
		d.RetryAfter = time.Duration(a.reset) * time.Microsecond
	}
	return d
}

// WindowKey is the Redis name (before Key adds the prefix and the hash tag)
// of a rate-limit bucket's window: bucket is the limiter's key, such as
// "v2:org:<organization id>". Windows were sorted sets under "rl:" before
// they became lists under this name (docs/edge.md, "Redis key layout").
func WindowKey(bucket string) string { return "window:" + bucket }

// nextBatch takes the batch gathered meanwhile, or marks the admitter idle
// and returns nil when no admission waits.
func (r *Redis) nextBatch() *pending {
	r.admits.mu.Lock()
	defer r.admits.mu.Unlock()
	next := r.admits.next
	r.admits.next = nil
	if next == nil {
		r.admits.busy = false
	}
	return next
}

// drainAdmissions sends batches until none waits.
func (r *Redis) drainAdmissions(p *pending) {
	for p != nil {
		r.send(p)
		p = r.nextBatch()
	}
}

// send sends a gathered batch and releases its waiters. The batch runs
// under its first admission's context values, without its cancellation,
// until the batch's deadline, and in a trace of its own when it holds
// more than one admission (batchTrace); one whose deadline passed while
// the batch before it was in flight is not sent (its admissions have failed
// open).
func (r *Redis) send(p *pending) {
	if time.Now().Before(p.deadline) {
		ctx, cancel := context.WithDeadline(context.WithoutCancel(p.batch[0].ctx), p.deadline)
		ctx, end := r.batchTrace(ctx, p.batch)
		r.admitBatch(ctx, p.batch)
		end()
		cancel()
	} else {
		for _, a := range p.batch {
			a.err = context.DeadlineExceeded
		}
	}
	p.timer.Stop()
	close(p.done)
}

// scriptCall is one call of slidingWindow: admissions whose keys may share
// a script.
type scriptCall struct {
	batch []*admission
	cmd   *redis.Cmd
}

// calls splits a batch into script calls: on a single Redis in order,
// maxScriptKeys at a time; on a Redis Cluster one per window (more past
// maxScriptKeys), each window's admissions in batch order. Keys of one hash
// slot could share a call there, but while that slot migrates between
// nodes, Redis refuses a script over several of its keys (TRYAGAIN) where
// it redirects one over a single key (ASK); and every window name is its
// own hash tag (Key), so two windows meet in one slot only by chance.
func (r *Redis) calls(batch []*admission) []*scriptCall {
	var calls []*scriptCall
	if !r.cluster {
		for len(batch) > 0 {
			n := min(len(batch), maxScriptKeys)
			calls = append(calls, &scriptCall{batch: batch[:n:n]})
			batch = batch[n:]
		}
		return calls
	}
	open := map[string]*scriptCall{} // each window's call that still has room
	for _, a := range batch {
		c := open[a.key]
		if c == nil || len(c.batch) == maxScriptKeys {
			c = &scriptCall{}
			calls = append(calls, c)
			open[a.key] = c
		}
		c.batch = append(c.batch, a)
	}
	return calls
}

// script returns the keys and arguments of the call.
func (c *scriptCall) script() ([]string, []any) {
	keys := make([]string, len(c.batch))
	args := make([]any, 0, 2*len(c.batch))
	for i, a := range c.batch {
		keys[i] = a.key
		args = append(args, a.window, a.limit)
	}
	return keys, args
}

// reply hands each admission of the call its part of the reply.
func (c *scriptCall) reply() {
	res, err := c.cmd.Int64Slice()
	if err == nil && len(res) != 1+2*len(c.batch) {
		err = fmt.Errorf("%w: unexpected script reply of %d values for %d admissions", ErrUnavailable, len(res), len(c.batch))
	}
	for i, a := range c.batch {
		if err != nil {
			a.err = err
			continue
		}
		a.now, a.count, a.reset = res[0], res[1+2*i], res[2+2*i]
	}
}

// admitBatch runs the batch's script calls, pipelined when there is more
// than one, and hands each admission its reply.
func (r *Redis) admitBatch(ctx context.Context, batch []*admission) {
	calls := r.calls(batch)
	if len(calls) == 1 {
		c := calls[0]
		keys, args := c.script()
		c.cmd = slidingWindow.Run(ctx, r.client, keys, args...)
		c.reply()
		return
	}
	_, _ = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range calls {
			keys, args := c.script()
			c.cmd = slidingWindow.EvalSha(ctx, p, keys, args...)
		}
		return nil
	})
	var flushed []*scriptCall
	for _, c := range calls {
		if redis.HasErrorPrefix(c.cmd.Err(), "NOSCRIPT") {
			flushed = append(flushed, c)
		}
	}
	if len(flushed) > 0 { // the script cache was flushed: EVAL, as Script.Run does
		_, _ = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, c := range flushed {
				keys, args := c.script()
				c.cmd = slidingWindow.Eval(ctx, p, keys, args...)
			}
			return nil
		})
	}
	for _, c := range calls {
		c.reply()
	}
}

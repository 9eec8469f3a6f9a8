package edge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Admissions of one process go to Redis one batch at a time: an Admit that
// finds no batch in flight sends its script at once (EVALSHA, one round
// trip, as before); the Admits that arrive while a batch is in flight wait
// for it and then go out together, every script in one pipelined write and
// one read. Each admission is still its own atomic script, so the window
// stays exact across pods; what the batch saves is the per-command socket
// work on both sides (a write and a read system call each, in the server
// and in Redis), which was most of the limiter's CPU (bench/README.md). An
// admission waits at most for the batch in flight before its own, and never
// beyond its own timeout (the limiter then fails open, as before).

// admission is one Admit waiting for its script's reply.
type admission struct {
	ctx  context.Context
	key  string
	args []any
	res  []int64
	err  error
	done chan struct{}
}

// admitter queues the admissions that arrive while a batch is in flight.
type admitter struct {
	mu      sync.Mutex
	busy    bool
	waiting []*admission
}

// Admit implements Store in one round trip of its own (EVALSHA; EVAL once
// after the script cache was flushed, for example by a Redis restart),
// batched with the process's concurrent admissions (above).
func (r *Redis) Admit(ctx context.Context, key string, limit int, window time.Duration) (Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, r.limiter)
	defer cancel()
	a := &admission{ctx: ctx, key: r.Key(WindowKey(key)),
		args: []any{window.Microseconds(), limit}, done: make(chan struct{})}

	r.admits.mu.Lock()
	if r.admits.busy {
		r.admits.waiting = append(r.admits.waiting, a)
		r.admits.mu.Unlock()
		select {
		case <-a.done:
		case <-ctx.Done():
			return Decision{}, unavailable(ctx.Err())
		}
	} else {
		r.admits.busy = true
		r.admits.mu.Unlock()
		r.admitBatch(ctx, []*admission{a})
		// This request's reply is in: the admissions that queued meanwhile
		// go out on a goroutine of their own.
		if next := r.nextBatch(); next != nil {
			go r.drainAdmissions(next)
		}
	}
	if a.err != nil {
		return Decision{}, r.failed(a.err)
	}
	res := a.res
	if len(res) != 4 {
		return Decision{}, fmt.Errorf("%w: unexpected script reply %v", ErrUnavailable, res)
	}
	d := Decision{Allowed: res[0] == 1, Limit: limit, Remaining: max(0, limit-int(res[1])),
		Reset: time.UnixMicro(res[2]).UTC()}
	if !d.Allowed {
		d.RetryAfter = time.Duration(res[2]-res[3]) * time.Microsecond
	}
	return d, nil
}

// WindowKey is the Redis name (before Key adds the prefix and the hash tag)
// of a rate-limit bucket's window: bucket is the limiter's key, such as
// "v2:org:<organization id>". Windows were sorted sets under "rl:" before
// they became lists under this name (docs/edge.md, "Redis key layout").
func WindowKey(bucket string) string { return "window:" + bucket }

// nextBatch takes the queued admissions, or marks the admitter idle and
// returns nil when none is queued.
func (r *Redis) nextBatch() []*admission {
	r.admits.mu.Lock()
	defer r.admits.mu.Unlock()
	next := r.admits.waiting
	r.admits.waiting = nil
	if len(next) == 0 {
		r.admits.busy = false
		return nil
	}
	return next
}

// drainAdmissions sends batches until none is queued. A batch runs under
// its first admission's context values (its trace), without its
// cancellation, bounded by the limiter's timeout.
func (r *Redis) drainAdmissions(batch []*admission) {
	for batch != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(batch[0].ctx), r.limiter)
		r.admitBatch(ctx, batch)
		cancel()
		batch = r.nextBatch()
	}
}

// admitBatch runs every admission's script, one pipelined write for more
// than one, and hands each its reply.
func (r *Redis) admitBatch(ctx context.Context, batch []*admission) {
	defer func() {
		for _, a := range batch {
			close(a.done)
		}
	}()
	if len(batch) == 1 {
		a := batch[0]
		a.res, a.err = slidingWindow.Run(ctx, r.client, []string{a.key}, a.args...).Int64Slice()
		return
	}
	cmds := make([]*redis.Cmd, len(batch))
	_, _ = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, a := range batch {
			cmds[i] = slidingWindow.EvalSha(ctx, p, []string{a.key}, a.args...)
		}
		return nil
	})
	var flushed []int
	for i, c := range cmds {
		if redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
			flushed = append(flushed, i)
		}
	}
	if len(flushed) > 0 { // the script cache was flushed: EVAL, as Script.Run does
		_, _ = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range flushed {
				cmds[i] = slidingWindow.Eval(ctx, p, []string{batch[i].key}, batch[i].args...)
			}
			return nil
		})
	}
	for i, a := range batch {
		a.res, a.err = cmds[i].Int64Slice()
	}
}

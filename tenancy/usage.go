package tenancy

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// usageInterval is the least time between two writes of one key's
// last_used_at by one instance.
const usageInterval = time.Minute

// flushEvery is how often the background writer runs.
const flushEvery = 5 * time.Second

// usageRecorder records last_used_at off the request path: touch only
// updates a map; a goroutine writes pending keys in one statement, each key
// at most once per interval. A request that comes within the interval of
// its key's last write is held and written once the interval has passed,
// so the value written is always, in the end, the key's most recent
// successful request (at most interval and every late), and never goes
// back (the WHERE clause keeps that true across instances, each of which
// writes a key at most once per interval).
type usageRecorder struct {
	db bun.IDB
	// failures logs the failed writes, at most one line per
	// telemetry.OutageLogEvery with their count, as the service's other
	// outage lines (a database outage fails one every few seconds).
	failures *telemetry.OutageLog
	every    time.Duration // how often the writer runs
	// interval is the least time between two writes of one key.
	interval time.Duration
	// budget bounds shutdown's writes (flushFinal): finalBudget;
	// writeTimeout each periodic write: writeTimeout.
	budget, writeTimeout time.Duration
	// stopping is cancelled when close is called: it ends a periodic
	// write in flight, whose keys go back to pending for the final one,
	// so that shutdown's budget is all it waits for.
	stopping context.Context
	cancel   context.CancelFunc
	mu       sync.Mutex
	// pending holds the keys to write at the next flush, held those
	// written less than interval ago, and next when each written key may
	// be written again (wall clock); all guarded by mu.
	pending, held, next map[uuid.UUID]time.Time
	stop                chan struct{}
	done                chan struct{}
	once                sync.Once
}

func newUsageRecorder(db bun.IDB, log *slog.Logger) *usageRecorder {
	return newUsageRecorderEvery(db, log, usageInterval, flushEvery)
}

// newUsageRecorderEvery starts a recorder with its interval and its
// writer's period, and its other settings as tune (tests) leaves them.
func newUsageRecorderEvery(db bun.IDB, log *slog.Logger, interval, every time.Duration, tune ...func(*usageRecorder)) *usageRecorder {
	u := &usageRecorder{db: db, failures: telemetry.NewOutageLog(log, "write api key last_used_at", telemetry.OutageLogEvery), every: every, interval: interval, budget: finalBudget, writeTimeout: writeTimeout, pending: map[uuid.UUID]time.Time{},
		held: map[uuid.UUID]time.Time{}, next: map[uuid.UUID]time.Time{}, stop: make(chan struct{}), done: make(chan struct{})}
	u.stopping, u.cancel = context.WithCancel(context.Background())
	for _, t := range tune {
		t(u)
	}
	go u.run()
	return u
}

// touch notes a successful request of key id at time at. A key already
// pending, or held, takes the later time, so the value written is its most
// recent request before the write.
func (u *usageRecorder) touch(id uuid.UUID, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch prev, pending := u.pending[id]; {
	case pending:
		u.pending[id] = later(prev, at)
	case time.Now().Before(u.next[id]):
		u.held[id] = later(u.held[id], at)
	default:
		u.pending[id] = at
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (u *usageRecorder) run() {
	defer close(u.done)
	t := time.NewTicker(u.every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = u.flush(u.stopping, false, time.Now().Add(u.writeTimeout)) // a failed write's keys wait for the next flush
		case <-u.stop:
			u.flushFinal()
			return
		}
	}
}

// writeTimeout bounds one write of last_used_at.
const writeTimeout = 5 * time.Second

// Shutdown's writes: they go on for at most finalBudget, as long as the
// request log's last flush may take (docs/observability.md), the first
// wait before a failed one is tried again is finalRetryWait, each later
// wait twice the one before, fitted before the budget's end
// (database.WaitBefore).
const (
	finalBudget    = 5 * time.Second
	finalRetryWait = 250 * time.Millisecond
)

// flushFinal writes every pending and held key at shutdown. A failed write
// (a pooler restarting in the same rolling update, a database failing
// over) is tried again after a wait, cut to end database.LastTry before
// the budget runs out, and none begins with less than that left; no write runs past
// it: a key used just before the pod stopped keeps that use when the
// database comes back in time.
func (u *usageRecorder) flushFinal() {
	by := time.Now().Add(u.budget)
	for wait := finalRetryWait; u.flush(context.Background(), true, by) != nil; wait *= 2 {
		if wait = database.WaitBefore(wait, by); wait <= 0 {
			return
		}
		time.Sleep(wait)
	}
}

// flush writes the pending keys and the held ones whose interval has
// passed (all held ones when final: the process is stopping), before by
// and while ctx lasts. A write that fails puts its keys back as pending
// (retry) and returns the error.
func (u *usageRecorder) flush(ctx context.Context, final bool, by time.Time) error {
	now := time.Now()
	u.mu.Lock()
	for id, at := range u.held {
		if final || !now.Before(u.next[id]) {
			u.pending[id] = later(u.pending[id], at)
			delete(u.held, id)
		}
	}
	for id, n := range u.next {
		if _, held := u.held[id]; !held && now.After(n) {
			delete(u.next, id) // bounds the map by the keys used in the last interval
		}
	}
	if len(u.pending) == 0 {
		u.mu.Unlock()
		return nil
	}
	batch := u.pending
	u.pending = map[uuid.UUID]time.Time{}
	for id := range batch {
		u.next[id] = now.Add(u.interval)
	}
	u.mu.Unlock()
	ids := make([]uuid.UUID, 0, len(batch))
	ats := make([]time.Time, 0, len(batch))
	for id, at := range batch {
		ids, ats = append(ids, id), append(ats, at)
	}
	wctx, cancel := context.WithDeadline(ctx, by)
	defer cancel()
	// Each key gets the time of its request, not of this write (up to
	// every later, and after a revocation made meanwhile); never earlier
	// than a value another instance wrote.
	_, err := u.db.NewRaw(`UPDATE api_keys AS k SET last_used_at = v.at
		FROM unnest(?::uuid[], ?::timestamptz[]) AS v(id, at)
		WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`,
		pgdialect.Array(ids), pgdialect.Array(ats)).Exec(wctx)
	if err != nil {
		u.retry(batch)
		if ctx.Err() == nil { // a write cut short by close is the final one's to do
			u.failures.Record(context.WithoutCancel(ctx), fmt.Errorf("%d keys' last use not written: %w", len(ids), err))
		}
	}
	return err
}

// retry puts a batch whose write failed (a database or pooler outage) back
// as pending, for the next flush to write: the keys are not held for the
// interval, which counts from a write that did not happen. A key touched
// meanwhile keeps the later time.
func (u *usageRecorder) retry(batch map[uuid.UUID]time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, at := range batch {
		at = later(at, u.held[id])
		u.pending[id] = later(u.pending[id], at)
		delete(u.held, id)
		delete(u.next, id)
	}
}

// close stops the recorder after its final write, and writes the failures
// its outage line held back: the final write runs after serve has written
// the others (telemetry.FlushOutageLogs), and a failure of it would
// otherwise leave no line before the process exits.
func (u *usageRecorder) close() {
	u.once.Do(func() {
		u.cancel()
		close(u.stop)
		<-u.done
		u.failures.Flush(context.Background())
	})
}

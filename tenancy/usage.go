package tenancy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// usageInterval is how often pending last_used_at values are written, and
// the minimum gap between two writes for the same key.
const usageInterval = time.Minute

// flushEvery is how often the background writer runs.
var flushEvery = 5 * time.Second

// usageRecorder records last_used_at off the request path: touch only updates
// a map; a goroutine writes pending keys in one statement, at most once a
// minute per key (the WHERE clause keeps that true across instances too).
type usageRecorder struct {
	db      bun.IDB
	log     *slog.Logger
	mu      sync.Mutex
	pending map[uuid.UUID]time.Time
	written map[uuid.UUID]time.Time
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newUsageRecorder(db bun.IDB, log *slog.Logger) *usageRecorder {
	u := &usageRecorder{db: db, log: log, pending: map[uuid.UUID]time.Time{}, written: map[uuid.UUID]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go u.run()
	return u
}

// touch notes a successful request of key id at time at. A key already
// pending takes the later time, so the value written is its most recent
// request before the write.
func (u *usageRecorder) touch(id uuid.UUID, at time.Time) {
	u.mu.Lock()
	if prev, ok := u.pending[id]; ok {
		if at.After(prev) {
			u.pending[id] = at
		}
	} else if last, ok := u.written[id]; !ok || at.Sub(last) >= usageInterval {
		u.pending[id] = at
		u.written[id] = at
	}
	u.mu.Unlock()
}

func (u *usageRecorder) run() {
	defer close(u.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			u.flush()
		case <-u.stop:
			u.flush()
			return
		}
	}
}

func (u *usageRecorder) flush() {
	u.mu.Lock()
	if len(u.pending) == 0 {
		u.mu.Unlock()
		return
	}
	batch := u.pending
	u.pending = map[uuid.UUID]time.Time{}
	u.mu.Unlock()
	ids := make([]uuid.UUID, 0, len(batch))
	ats := make([]time.Time, 0, len(batch))
	for id, at := range batch {
		ids, ats = append(ids, id), append(ats, at)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Each key gets the time of its request, not of this write (up to
	// flushEvery later, and after a revocation made meanwhile); never
	// earlier than a value another instance wrote.
	_, err := u.db.NewRaw(`UPDATE api_keys AS k SET last_used_at = v.at
		FROM unnest(?::uuid[], ?::timestamptz[]) AS v(id, at)
		WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at - interval '1 minute')`,
		pgdialect.Array(ids), pgdialect.Array(ats)).Exec(ctx)
	if err != nil && u.log != nil {
		u.log.Warn("write api key last_used_at", "error", err, "keys", len(ids))
	}
}

func (u *usageRecorder) close() {
	u.once.Do(func() { close(u.stop); <-u.done })
}

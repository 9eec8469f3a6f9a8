package tenancy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
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

func (u *usageRecorder) touch(id uuid.UUID, at time.Time) {
	u.mu.Lock()
	if last, ok := u.written[id]; !ok || at.Sub(last) >= usageInterval {
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
	for id := range batch {
		ids = append(ids, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := u.db.NewUpdate().Table("api_keys").Set("last_used_at = clock_timestamp()").
		Where("id IN (?)", bun.In(ids)).
		Where("last_used_at IS NULL OR last_used_at < clock_timestamp() - interval '1 minute'").Exec(ctx)
	if err != nil && u.log != nil {
		u.log.Warn("write api key last_used_at", "error", err, "keys", len(ids))
	}
}

func (u *usageRecorder) close() {
	u.once.Do(func() { close(u.stop); <-u.done })
}

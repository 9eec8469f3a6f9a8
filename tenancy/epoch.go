package tenancy

import (
	"context"
	"sync"
	"time"

	"github.com/eventapi/eventapi/platform/database"
)

// epochClock remembers the last confirmed authentication epoch: the value
// auth_epoch held in a snapshot taken after the time at.
type epochClock struct {
	mu    sync.Mutex
	at    time.Time
	value int64
	valid bool
}

func (c *epochClock) get() (value int64, at time.Time, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value, c.at, c.valid
}

// set records that the epoch was value in a snapshot taken after at,
// keeping the latest confirmation.
func (c *epochClock) set(value int64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || at.After(c.at) {
		c.value, c.at, c.valid = value, at, true
	}
}

// usable reports whether the cached lookup e may answer at now: within the
// TTL of its query, or while the epoch it was read with is the current one
// as confirmed within the TTL (at most one query per TTL for the process,
// shared by concurrent callers), and never past maxEntryAge. A failed
// confirmation makes the entry unusable, so the caller looks the key up and
// reports that query's error.
func (a *Authenticator) usable(ctx context.Context, e cacheEntry, now time.Time) bool {
	switch {
	case now.Before(e.fetched.Add(a.ttl)):
		return true
	case !now.Before(e.fetched.Add(maxEntryAge)):
		return false
	}
	value, at, ok := a.epoch.get()
	if !ok || !now.Before(at.Add(a.ttl)) {
		if err := a.confirmEpoch(ctx); err != nil {
			return false
		}
		value, at, _ = a.epoch.get()
	}
	return value == e.epoch && now.Before(at.Add(a.ttl))
}

// confirmEpoch reads the current epoch; concurrent callers share one query.
func (a *Authenticator) confirmEpoch(ctx context.Context) error {
	_, err, _ := a.group.Do("auth_epoch", func() (any, error) {
		at := a.now()
		var value int64
		if err := a.db.NewRaw("SELECT epoch FROM auth_epoch").Scan(ctx, &value); err != nil {
			return nil, database.Error(err)
		}
		a.epoch.set(value, at)
		return nil, nil
	})
	return err
}

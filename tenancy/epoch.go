package tenancy

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/eventapi/eventapi/platform/database"
)

// epochClock remembers the last confirmed authentication epoch. It is read
// by every authentication past its lookup's TTL, so it is one atomic
// pointer, not a lock.
type epochClock struct {
	last atomic.Pointer[epochMark]
}

// epochMark says auth_epoch held value in a snapshot taken after at.
type epochMark struct {
	value int64
	at    time.Time
}

func (c *epochClock) get() (value int64, at time.Time, ok bool) {
	m := c.last.Load()
	if m == nil {
		return 0, time.Time{}, false
	}
	return m.value, m.at, true
}

// set records that the epoch was value in a snapshot taken after at,
// keeping the latest confirmation.
func (c *epochClock) set(value int64, at time.Time) {
	m := &epochMark{value: value, at: at}
	for {
		old := c.last.Load()
		if old != nil && !at.After(old.at) {
			return
		}
		if c.last.CompareAndSwap(old, m) {
			return
		}
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

// confirmEpoch reads the current epoch; concurrent callers share one query
// (share: one caller's cancellation does not fail the others).
func (a *Authenticator) confirmEpoch(ctx context.Context) error {
	_, err := a.share(ctx, "auth_epoch", func(ctx context.Context) (any, error) {
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

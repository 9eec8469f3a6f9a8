package requestlog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// Defaults of MaintainOptions.
const (
	DefaultRetention = 2160 * time.Hour // 90 days
	DefaultAhead     = 3                // days of partitions created in advance
	DefaultEvery     = time.Hour
)

// maintainLockID is the transaction-scoped advisory lock that lets one pod at
// a time create and drop partitions ("reqlogs" in ASCII). A session lock
// would not survive a transaction-mode pooler; this one ends with the
// transaction.
const maintainLockID = 0x7265716c6f6773

const partitionPrefix = "request_log_segments_p"

// MaintainOptions configures Maintain.
type MaintainOptions struct {
	// Retention is how long records are kept (default 90 days). A day's
	// partition (the segments whose last record is of that day) is dropped
	// once its last instant is older than Retention, so a record is kept at
	// least Retention and less than a day and MaxSpan longer.
	Retention time.Duration
	// Ahead is how many days after today get a partition (default 3).
	Ahead int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// MaintainResult reports what one run did.
type MaintainResult struct {
	// Skipped is true when another process held the lock; it did the work.
	Skipped bool
	Created []string
	Dropped []string
}

// Maintain creates the partitions from yesterday to Ahead days ahead and drops
// those past the retention, under an advisory lock. When another process
// holds the lock it returns at once with Skipped set, so any number of pods
// may run it at the same time. Creating and dropping are two transactions:
// a drop that gives up (a long reader holds the old partition past the
// lock timeout) keeps the partitions made ahead, which writers need.
func Maintain(ctx context.Context, db bun.IDB, opt MaintainOptions) (MaintainResult, error) {
	if opt.Retention <= 0 {
		opt.Retention = DefaultRetention
	}
	if opt.Ahead <= 0 {
		opt.Ahead = DefaultAhead
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	var res MaintainResult
	now := opt.Now().UTC()
	skipped, err := underLock(ctx, db, func(ctx context.Context, tx bun.Tx, existing map[string]bool) error {
		today := now.Truncate(24 * time.Hour)
		for d := -1; d <= opt.Ahead; d++ {
			day := today.AddDate(0, 0, d)
			name := PartitionName(day)
			if existing[name] {
				continue
			}
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(
				"CREATE TABLE IF NOT EXISTS %s PARTITION OF request_log_segments FOR VALUES FROM ('%s') TO ('%s')",
				name, day.Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339))); err != nil {
				return fmt.Errorf("create partition %s: %w", name, err)
			}
			res.Created = append(res.Created, name)
		}
		return nil
	})
	if err != nil || skipped {
		res.Created, res.Skipped = nil, skipped
		return res, err
	}
	skipped, err = underLock(ctx, db, func(ctx context.Context, tx bun.Tx, existing map[string]bool) error {
		cutoff := now.Add(-opt.Retention)
		for name := range existing {
			day, ok := partitionDay(name)
			if !ok || day.AddDate(0, 0, 1).After(cutoff) {
				continue
			}
			if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
				return fmt.Errorf("drop partition %s: %w", name, err)
			}
			res.Dropped = append(res.Dropped, name)
		}
		return nil
	})
	if err != nil || skipped {
		res.Dropped = nil // rolled back, or left to the process that holds the lock
	}
	return res, err
}

// underLock runs step in a transaction that holds Maintain's advisory lock,
// with the partitions that exist; it reports skipped, running nothing,
// when another process holds the lock. DDL on a partition locks the
// parent, so the transaction never queues behind a long reader (making
// every writer queue behind it): it gives up after a lock timeout, and the
// next run tries again.
func underLock(ctx context.Context, db bun.IDB, step func(context.Context, bun.Tx, map[string]bool) error) (skipped bool, err error) {
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var got bool
		if err := tx.NewRaw("SELECT pg_try_advisory_xact_lock(?)", int64(maintainLockID)).Scan(ctx, &got); err != nil {
			return err
		}
		if !got {
			skipped = true
			return nil
		}
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
			return err
		}
		existing, err := partitions(ctx, tx)
		if err != nil {
			return err
		}
		return step(ctx, tx, existing)
	})
	return skipped, err
}

// PartitionName is the name of day's partition (request_log_segments_pYYYYMMDD,
// UTC): the segments whose last record is of that day.
func PartitionName(day time.Time) string {
	return partitionPrefix + day.UTC().Format("20060102")
}

func partitionDay(name string) (time.Time, bool) {
	s, ok := strings.CutPrefix(name, partitionPrefix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102", s)
	return t, err == nil
}

// partitions returns the names of request_log_segments' partitions.
func partitions(ctx context.Context, db bun.IDB) (map[string]bool, error) {
	var names []string
	err := db.NewRaw(`
		SELECT c.relname FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'request_log_segments'::regclass`).Scan(ctx, &names)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}

// RunMaintenance runs Maintain now and then every interval until ctx ends,
// logging what it does. The serve process runs it in every pod; the lock
// makes one of them do the work.
func RunMaintenance(ctx context.Context, db bun.IDB, opt MaintainOptions, every time.Duration, log *slog.Logger) {
	if every <= 0 {
		every = DefaultEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := Maintain(ctx, db, opt)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("request log: partition maintenance failed; retrying later", "error", err.Error())
		case len(res.Created)+len(res.Dropped) > 0:
			log.Info("request log: partitions maintained", "created", res.Created, "dropped", res.Dropped)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

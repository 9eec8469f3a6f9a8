package requestlog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// Defaults of MaintainOptions.
const (
	DefaultRetention = 2160 * time.Hour // 90 days
	DefaultAhead     = 3                // days of partitions created in advance
	DefaultEvery     = time.Hour
	DefaultLockWait  = 150 * time.Millisecond
	DefaultAttempts  = 4
	DefaultBackoff   = 250 * time.Millisecond
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
	// LockWait bounds one attempt's wait for a lock (default 150 ms): the
	// lock_timeout of each DDL transaction, and the deadline of a
	// DETACH … CONCURRENTLY, which cannot run in a transaction.
	LockWait time.Duration
	// Attempts is how many attempts a partition's creation or drop gets
	// when they give up waiting for a lock (default 4).
	Attempts int
	// Backoff is the pause after the first attempt that gave up, doubled
	// after each further one (default 250 ms).
	Backoff time.Duration
}

// MaintainResult reports what one run did.
type MaintainResult struct {
	// Skipped is true when another process held the lock; it did the work.
	Skipped bool
	Created []string
	Dropped []string
	// GaveUp counts the attempts that gave up waiting for a lock (and were
	// tried again, up to Attempts).
	GaveUp int
}

// MaintainCounted is Maintain with its run counted in the retention
// metrics (telemetry.RecordRetention), unless ctx ended meanwhile: the
// serve process's run at start and RunMaintenance's.
func MaintainCounted(ctx context.Context, db *bun.DB, opt MaintainOptions) (MaintainResult, error) {
	res, err := Maintain(ctx, db, opt)
	if ctx.Err() == nil {
		telemetry.RecordRetention(ctx, telemetry.RetentionRequestLog, res.outcome(), int64(len(res.Dropped)), err)
	}
	return res, err
}

// outcome is the run's retention outcome when it did not fail: skipped
// when another process held the lock.
func (r MaintainResult) outcome() string {
	if r.Skipped {
		return telemetry.RetentionSkipped
	}
	return telemetry.RetentionOK
}

// Maintain creates the partitions from yesterday to Ahead days ahead and drops
// those past the retention, one pod at a time (an advisory lock). When
// another process holds the lock it returns with Skipped set, so any number
// of pods may run it at the same time. Each partition is created, and
// dropped, on its own, creating first: a drop that gives up (a long reader
// holds the old partition) keeps the partitions made ahead, which writers
// need.
//
// No DDL here makes readers or writers of request_log_segments wait
// (docs/observability.md, "How long it is kept"): a partition is created as
// a table of its own and attached (ATTACH PARTITION takes SHARE UPDATE
// EXCLUSIVE on the parent, which neither reads nor writes conflict with),
// and detached with DETACH … CONCURRENTLY before it is dropped. Each
// attempt waits at most LockWait for a lock; one that gives up is counted
// in GaveUp and tried again after a backoff, and after Attempts the run
// returns the error (SQLSTATE 55P03 for a lock timeout) for the next run to
// try again.
//
// db must be a pool of at least two connections when a partition is to be
// dropped: one transaction holds the lock while DETACH … CONCURRENTLY runs
// outside any transaction on another.
func Maintain(ctx context.Context, db *bun.DB, opt MaintainOptions) (MaintainResult, error) {
	m := &maintenance{db: db, opt: withDefaults(opt)}
	now := m.opt.Now().UTC()
	if err := m.create(ctx, now); err != nil || m.res.Skipped {
		return m.res, err
	}
	err := m.drop(ctx, now.Add(-m.opt.Retention))
	return m.res, err
}

func withDefaults(opt MaintainOptions) MaintainOptions {
	if opt.Retention <= 0 {
		opt.Retention = DefaultRetention
	}
	if opt.Ahead <= 0 {
		opt.Ahead = DefaultAhead
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.LockWait <= 0 {
		opt.LockWait = DefaultLockWait
	}
	if opt.Attempts <= 0 {
		opt.Attempts = DefaultAttempts
	}
	if opt.Backoff <= 0 {
		opt.Backoff = DefaultBackoff
	}
	return opt
}

// maintenance is one run of Maintain.
type maintenance struct {
	db  *bun.DB
	opt MaintainOptions
	res MaintainResult
}

// errLocked is a step's report that another process holds the lock.
var errLocked = errors.New("another process maintains the partitions")

// create makes each missing partition from yesterday to Ahead days ahead,
// in a transaction of its own that holds the advisory lock. A partition
// takes the parent's columns with their defaults, constraints and
// compression (lz4 for the arrays since migration 20261212010000; LIKE
// alone would give it the server's default).
func (m *maintenance) create(ctx context.Context, now time.Time) error {
	today := now.Truncate(24 * time.Hour)
	for d := -1; d <= m.opt.Ahead; d++ {
		day := today.AddDate(0, 0, d)
		name := PartitionName(day)
		made := false
		err := m.retry(ctx, "create partition "+name, func(ctx context.Context) error {
			return m.inTx(ctx, true, func(ctx context.Context, tx bun.Tx) error {
				made = false
				all, err := tables(ctx, tx)
				if err != nil || all[name] != absent {
					return err
				}
				if _, err := tx.ExecContext(ctx, "CREATE TABLE "+name+
					" (LIKE request_log_segments INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION)"); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, fmt.Sprintf(
					"ALTER TABLE request_log_segments ATTACH PARTITION %s FOR VALUES FROM ('%s') TO ('%s')",
					name, day.Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339))); err != nil {
					return err
				}
				made = true
				return nil
			})
		})
		if errors.Is(err, errLocked) {
			m.res.Skipped = true
			return nil
		}
		if err != nil {
			return err
		}
		if made {
			m.res.Created = append(m.res.Created, name)
		}
	}
	return nil
}

// drop drops every partition whose last instant is at or before cutoff,
// and every table left detached from one. A transaction holds the advisory
// lock meanwhile, touching nothing else (see tryLock), and the DDL runs on
// other connections: DETACH … CONCURRENTLY cannot run in a transaction.
func (m *maintenance) drop(ctx context.Context, cutoff time.Time) error {
	if old, err := m.old(ctx, cutoff); err != nil || len(old) == 0 {
		return err
	}
	if m.db.Stats().MaxOpenConnections == 1 {
		return errors.New("dropping request log partitions needs a pool of at least 2 connections (one holds the lock)")
	}
	holder, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = holder.Rollback() }()
	if got, err := tryLock(ctx, holder); err != nil || !got {
		m.res.Skipped = err == nil
		return err
	}
	old, err := m.old(ctx, cutoff) // again: another process may have dropped some
	if err != nil {
		return err
	}
	var withDefault bool
	if err := m.db.NewRaw(`SELECT partdefid <> 0 FROM pg_partitioned_table
		WHERE partrelid = 'request_log_segments'::regclass`).Scan(ctx, &withDefault); err != nil {
		return err
	}
	for _, name := range old {
		if err := m.dropOne(ctx, name, withDefault); err != nil {
			return err
		}
		m.res.Dropped = append(m.res.Dropped, name)
	}
	return nil
}

// old lists the tables to drop, in the order to drop them: a pending
// detach first (only one may be pending, so no other partition can be
// detached before it is finalized), then by day (the names sort by day).
func (m *maintenance) old(ctx context.Context, cutoff time.Time) ([]string, error) {
	all, err := tables(ctx, m.db)
	if err != nil {
		return nil, err
	}
	var old []string
	for name := range all {
		if day, ok := partitionDay(name); ok && !day.AddDate(0, 0, 1).After(cutoff) {
			old = append(old, name)
		}
	}
	slices.SortFunc(old, func(a, b string) int {
		return cmp.Or(cmp.Compare(boolInt(all[b] == detachPending), boolInt(all[a] == detachPending)), strings.Compare(a, b))
	})
	return old, nil
}

// dropOne takes the partition name from whatever state it is in to gone:
// attached → detached (CONCURRENTLY, unless the table has a default
// partition, which refuses it), detach pending (a concurrent detach that
// gave up or was interrupted; only one may be pending at a time) →
// FINALIZE, detached → DROP TABLE. Each attempt reads the state before each
// step, so it goes on where the last one stopped, and a step already done
// by a detach still running (its connection closed by a transaction pooler
// when its deadline passed, see detach) is not done twice.
func (m *maintenance) dropOne(ctx context.Context, name string, withDefault bool) error {
	return m.retry(ctx, "drop partition "+name, func(ctx context.Context) error {
		var last error
		for range 6 { // at most 3 steps, and a state that changed under a failed one
			all, err := tables(ctx, m.db)
			if err != nil {
				return err
			}
			st := all[name]
			switch st {
			case absent:
				return nil
			case attached:
				err = m.detach(ctx, name, withDefault)
			case detachPending:
				err = m.ddl(ctx, "ALTER TABLE request_log_segments DETACH PARTITION "+name+" FINALIZE")
			case detached:
				err = m.ddl(ctx, "DROP TABLE IF EXISTS "+name)
			}
			if err == nil {
				continue
			}
			if isGaveUp(err) {
				return err
			}
			if again, serr := tables(ctx, m.db); serr != nil || again[name] == st {
				return err
			}
			last = err // moved on meanwhile (a detach still running, or another process)
		}
		return fmt.Errorf("its state kept changing: %w", last)
	})
}

// detach detaches name: concurrently, outside a transaction, with a
// deadline of LockWait (lock_timeout can only be set for the whole session
// there, which behind a transaction pooler would pass to other clients);
// or, beside a default partition, in a transaction.
func (m *maintenance) detach(ctx context.Context, name string, withDefault bool) error {
	stmt := "ALTER TABLE request_log_segments DETACH PARTITION " + name
	if withDefault {
		return m.ddl(ctx, stmt)
	}
	actx, cancel := context.WithTimeout(ctx, m.opt.LockWait)
	defer cancel()
	_, err := m.db.ExecContext(actx, stmt+" CONCURRENTLY")
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		return &gaveUp{err: fmt.Errorf("detach waited %v: %w", m.opt.LockWait, err)}
	}
	return err
}

// ddl runs stmt in a transaction waiting at most LockWait for each lock.
func (m *maintenance) ddl(ctx context.Context, stmt string) error {
	return m.inTx(ctx, false, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, stmt)
		return err
	})
}

// inTx runs fn in a transaction with lock_timeout set to LockWait (SET
// LOCAL: it ends with the transaction, so it is safe behind a transaction
// pooler), first taking the advisory lock when lock is set (errLocked when
// another process holds it).
func (m *maintenance) inTx(ctx context.Context, lock bool, fn func(context.Context, bun.Tx) error) error {
	return database.RunInTx(ctx, m.db, func(ctx context.Context, tx bun.Tx) error {
		if lock {
			if got, err := tryLock(ctx, tx); err != nil || !got {
				return cmp.Or(err, errLocked)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL lock_timeout = '%dms'", max(1, m.opt.LockWait.Milliseconds()))); err != nil {
			return err
		}
		return fn(ctx, tx)
	})
}

// tryLock takes Maintain's advisory lock in tx, reporting whether it got
// it. The transaction that holds it while partitions are dropped must not
// be waited for by their DDL: it locks nothing else (DETACH …
// CONCURRENTLY waits for every transaction that holds a lock on the
// parent), and it keeps no snapshot (DETACH … FINALIZE waits for every
// transaction with an older one). So the lock is taken by an Exec, which
// pgx sends in the simple protocol: a query's result (an unnamed portal of
// the extended protocol) would hold the snapshot until the transaction's
// next statement.
func tryLock(ctx context.Context, tx bun.Tx) (bool, error) {
	res, err := tx.ExecContext(ctx, "SELECT 1 WHERE pg_try_advisory_xact_lock(?)", int64(maintainLockID))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// retry runs step until it succeeds, fails other than by giving up on a
// lock, or has given up Attempts times, pausing Backoff (doubled each time)
// after each attempt that gave up.
func (m *maintenance) retry(ctx context.Context, what string, step func(context.Context) error) error {
	pause := m.opt.Backoff
	for attempt := 1; ; attempt++ {
		err := step(ctx)
		if err == nil || !isGaveUp(err) {
			if err != nil && !errors.Is(err, errLocked) {
				err = fmt.Errorf("%s: %w", what, err)
			}
			return err
		}
		m.res.GaveUp++
		if attempt == m.opt.Attempts {
			return fmt.Errorf("%s: gave up waiting for a lock %d times: %w", what, attempt, err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-t.C:
		}
		pause *= 2
	}
}

// gaveUp is a detach that passed its deadline.
type gaveUp struct{ err error }

func (g *gaveUp) Error() string { return g.err.Error() }
func (g *gaveUp) Unwrap() error { return g.err }

// isGaveUp reports whether err is an attempt that gave up waiting for a
// lock: a lock timeout (55P03 lock_not_available), or a detach's deadline.
func isGaveUp(err error) bool {
	var g *gaveUp
	return errors.As(err, &g) || database.HasCode(err, pgerrcode.LockNotAvailable)
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

// tableState is where a partition's table is on its way from attached to
// dropped.
type tableState int

const (
	absent tableState = iota
	attached
	detachPending
	detached // a table of the partitions' name, no longer attached
)

// tables returns the state of each table named like a partition of
// request_log_segments (PartitionName), in the parent's schema.
func tables(ctx context.Context, db bun.IDB) (map[string]tableState, error) {
	var rows []struct {
		Name    string `bun:"relname"`
		Part    bool   `bun:"part"`
		Pending bool   `bun:"pending"`
	}
	err := db.NewRaw(`
		SELECT c.relname, i.inhrelid IS NOT NULL AS part, coalesce(i.inhdetachpending, false) AS pending
		FROM pg_class c
		LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'request_log_segments'::regclass
		WHERE c.relkind = 'r' AND starts_with(c.relname, ?)
		  AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'request_log_segments'::regclass)
		  AND (i.inhrelid IS NOT NULL OR NOT c.relispartition)`, partitionPrefix).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]tableState, len(rows))
	for _, r := range rows {
		switch {
		case r.Pending:
			out[r.Name] = detachPending
		case r.Part:
			out[r.Name] = attached
		default:
			out[r.Name] = detached
		}
	}
	return out, nil
}

// RunMaintenance runs Maintain now and then every interval until ctx ends,
// logging what it does. The serve process runs it in every pod; the lock
// makes one of them do the work.
func RunMaintenance(ctx context.Context, db *bun.DB, opt MaintainOptions, every time.Duration, log *slog.Logger) {
	if every <= 0 {
		every = DefaultEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := MaintainCounted(ctx, db, opt)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("request log: partition maintenance failed; retrying later", "error", err.Error(),
				"gave_up", res.GaveUp, "created", res.Created, "dropped", res.Dropped)
		case len(res.Created)+len(res.Dropped) > 0 || res.GaveUp > 0:
			log.Info("request log: partitions maintained", "created", res.Created, "dropped", res.Dropped, "gave_up", res.GaveUp)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

package requestlog_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
)

// The partition job's DDL and the table's readers and writers
// (docs/observability.md, "How long it is kept"). These tests open their
// pool as the service does, so they also pass behind a transaction pooler
// (EVENTAPI_TEST_POOLER_URL), and wait for lock states in pg_locks, never
// for a time.

// openPooled opens a fresh database as the service would, through the
// test pooler when there is one; the tests below hold up to six
// connections at once.
func openPooled(t *testing.T) *bun.DB {
	t.Helper()
	db, err := database.Open(context.Background(), pgtest.NewDatabase(t), database.Options{MaxOpenConns: 10, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// waitUntil polls cond until it holds. The minute is only a guard against
// a test that would hang; nothing is measured against it.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting, after a minute, for %s", what)
		}
	}
}

// lockWaiters lists the backends of the test database other than except
// that wait for a lock, with their statements.
func lockWaiters(t *testing.T, db *bun.DB, except int) []string {
	t.Helper()
	var out []string
	if err := db.NewRaw(`SELECT a.pid || ': ' || a.query FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE NOT l.granted AND a.datname = current_database() AND a.pid <> ?`, except).Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// ddlWaiting returns the backend of the job's DDL once it waits for a
// lock, failing the test if the job ends first.
func ddlWaiting(t *testing.T, db *bun.DB, done <-chan error) int {
	t.Helper()
	var pid int
	waitUntil(t, "the partition job to wait for a lock", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the job ended (%v) without waiting for the reader", err)
		default:
		}
		pid = 0
		if err := db.NewRaw(`SELECT coalesce(max(pid), 0) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ~ '^(CREATE|ALTER|DROP) TABLE'`).Scan(context.Background(), &pid); err != nil {
			t.Fatal(err)
		}
		return pid != 0
	})
	return pid
}

// holding begins a transaction that runs stmt and keeps its locks until the
// test rolls it back (or ends).
func holding(t *testing.T, db *bun.DB, stmt string) bun.Tx {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(context.Background(), stmt); err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestPartitionDDLDoesNotQueueReadersOrWriters: while a long reader holds
// request_log_segments, a run that has partitions to create and to drop
// waits for it, and meanwhile another reader and the writer's COPY run
// without waiting for any lock. Up to 2.8.6 the job's CREATE TABLE … PARTITION
// OF waited for ACCESS EXCLUSIVE on the table for up to 5 s, and every read
// and write of the request log queued behind it.
func TestPartitionDDLDoesNotQueueReadersOrWriters(t *testing.T) {
	ctx := context.Background()
	db := openPooled(t)
	now := time.Now().UTC()
	past := now.AddDate(0, 0, -10)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1, Now: func() time.Time { return past }}); err != nil {
		t.Fatal(err)
	}
	reader := holding(t, db, "SELECT count(*) FROM request_log_segments")

	// LockWait is long here, so that the job is still waiting when the
	// others are done: they did not wait for it to give up.
	type result struct {
		res requestlog.MaintainResult
		err error
	}
	results, done := make(chan result, 1), make(chan error, 1)
	go func() {
		res, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1,
			Now: func() time.Time { return now }, LockWait: time.Minute})
		done <- err
		results <- result{res, err}
	}()
	job := ddlWaiting(t, db, done)

	others := make(chan error, 2)
	go func() {
		var n int
		others <- db.NewRaw("SELECT count(*) FROM request_log_segments").Scan(ctx, &n)
	}()
	go func() {
		org := uuid.New()
		r := requestlog.Record{CreatedAt: now, OrganizationID: &org, RequestID: uuid.NewString(), Method: "GET",
			Path: "/api/v2/events", Status: 200, APIVersion: "v2"}
		r.Normalize()
		others <- requestlog.Copy(ctx, db, []requestlog.Record{r})
	}()
	for left := 2; left > 0; {
		select {
		case err := <-others:
			if err != nil {
				t.Fatalf("a reader or the writer failed beside the job: %v", err)
			}
			left--
		default:
			if w := lockWaiters(t, db, job); len(w) > 0 {
				_ = reader.Rollback()
				t.Fatalf("waiting behind the partition job: %v", w)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if w := lockWaiters(t, db, 0); len(w) != 1 || !strings.HasPrefix(w[0], strconv.Itoa(job)+": ") {
		t.Fatalf("after the reader and the writer, the waiters are %v; want the job (%d) still waiting", w, job)
	}

	_ = reader.Rollback()
	r := <-results
	if r.err != nil || len(r.res.Created) != 3 || len(r.res.Dropped) != 3 || r.res.GaveUp != 0 {
		t.Fatalf("the run, once the reader is gone: %+v %v; want 3 created, 3 dropped", r.res, r.err)
	}
}

// TestPartitionJobGivesUpOnALock: with a lock held through the run, the
// creation or the drop that needs it gives up after its attempts, each
// counted in GaveUp, with the lock timeout's error (logged by
// RunMaintenance); what it does not need is done, and the next run, the
// lock gone, does the rest.
func TestPartitionJobGivesUpOnALock(t *testing.T) {
	const attempts = 3
	for _, c := range []struct {
		name, hold       string
		created, dropped int // by the run under the lock
	}{
		// ACCESS SHARE: the drop's detach waits for the reader; creating
		// does not conflict with it.
		{"a reader of the table", "SELECT count(*) FROM request_log_segments", 3, 0},
		// SHARE UPDATE EXCLUSIVE, as ANALYZE or a concurrent DDL takes:
		// attaching a partition conflicts with it.
		{"a lock against attaching", "LOCK TABLE request_log_segments IN SHARE UPDATE EXCLUSIVE MODE", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db := openPooled(t)
			now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			opt := func(at time.Time) requestlog.MaintainOptions {
				return requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1, Now: func() time.Time { return at },
					Attempts: attempts, Backoff: time.Millisecond}
			}
			if _, err := requestlog.Maintain(ctx, db, opt(now.AddDate(0, 0, -10))); err != nil {
				t.Fatal(err)
			}
			blocker := holding(t, db, c.hold)

			res, err := requestlog.Maintain(ctx, db, opt(now))
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "55P03" || res.GaveUp != attempts ||
				len(res.Created) != c.created || len(res.Dropped) != c.dropped {
				t.Fatalf("under the lock: %+v, %v; want %d created, %d dropped, %d attempts given up, a lock timeout",
					res, err, c.created, c.dropped, attempts)
			}

			logged := make(chan slog.Record, 1)
			rctx, stop := context.WithCancel(ctx)
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				requestlog.RunMaintenance(rctx, db, opt(now), time.Hour, slog.New(recordHandler(logged)))
			}()
			rec := <-logged
			stop()
			<-ran
			attrs := map[string]string{}
			rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
			if rec.Level != slog.LevelWarn || attrs["gave_up"] != "3" || !strings.Contains(attrs["error"], "lock timeout") {
				t.Errorf("logged %s %q %v; want a warning with gave_up=3 and the lock timeout", rec.Level, rec.Message, attrs)
			}

			_ = blocker.Rollback()
			res, err = requestlog.Maintain(ctx, db, opt(now))
			if err != nil || res.GaveUp != 0 || len(res.Dropped) != 3 {
				t.Fatalf("the lock gone: %+v %v; want the old partitions dropped", res, err)
			}
			parts, err := requestlog.Partitions(ctx, db)
			if err != nil || len(parts) != 3 {
				t.Errorf("partitions after the runs: %v %v; want yesterday's to tomorrow's", parts, err)
			}
		})
	}
}

// recordHandler is a slog.Handler that sends each record to ch, dropping
// those it cannot take at once.
type recordHandler chan<- slog.Record

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h <- r.Clone():
	default:
	}
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// TestDropFinishesEveryState: an old partition is dropped whatever state an
// earlier run, or an operator, left it in: attached, its concurrent detach
// pending (interrupted after its first transaction), detached but not
// dropped, or attached beside a default partition (which refuses a
// concurrent detach).
func TestDropFinishesEveryState(t *testing.T) {
	for _, c := range []struct {
		name  string
		leave func(t *testing.T, db *bun.DB, name string)
	}{
		{"attached", func(*testing.T, *bun.DB, string) {}},
		{"detach pending", leavePending},
		{"detached", func(t *testing.T, db *bun.DB, name string) {
			if _, err := db.ExecContext(context.Background(), "ALTER TABLE request_log_segments DETACH PARTITION "+name); err != nil {
				t.Fatal(err)
			}
		}},
		{"beside a default partition", func(t *testing.T, db *bun.DB, _ string) {
			if _, err := db.ExecContext(context.Background(),
				"CREATE TABLE request_log_segments_default PARTITION OF request_log_segments DEFAULT"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db := openPooled(t)
			now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			past := now.AddDate(0, 0, -10)
			opt := func(at time.Time) requestlog.MaintainOptions {
				return requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1, Now: func() time.Time { return at }}
			}
			if _, err := requestlog.Maintain(ctx, db, opt(past)); err != nil {
				t.Fatal(err)
			}
			old := requestlog.PartitionName(past)
			c.leave(t, db, old)

			res, err := requestlog.Maintain(ctx, db, opt(now))
			if err != nil || len(res.Dropped) != 3 || len(res.Created) != 3 {
				t.Fatalf("maintain: %+v %v; want 3 created and 3 dropped", res, err)
			}
			var left bool
			if err := db.NewRaw("SELECT to_regclass(?) IS NOT NULL", old).Scan(ctx, &left); err != nil || left {
				t.Errorf("%s is still there (%v)", old, err)
			}
		})
	}
}

// leavePending leaves name's concurrent detach pending: its first
// transaction commits, and it is cancelled while it waits for a reader.
func leavePending(t *testing.T, db *bun.DB, name string) {
	t.Helper()
	ctx := context.Background()
	reader := holding(t, db, "SELECT count(*) FROM request_log_segments")
	done := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "ALTER TABLE request_log_segments DETACH PARTITION "+name+" CONCURRENTLY")
		done <- err
	}()
	pid := ddlWaiting(t, db, done)
	waitUntil(t, "the detach to be pending", func() bool {
		var pending bool
		if err := db.NewRaw("SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = ?::regclass", name).Scan(ctx, &pending); err != nil {
			t.Fatal(err)
		}
		return pending
	})
	if _, err := db.ExecContext(ctx, "SELECT pg_cancel_backend(?)", pid); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("the cancelled detach succeeded")
	}
	_ = reader.Rollback()
}

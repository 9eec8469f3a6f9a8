package requestlog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestWriterTriesAFailedFlushAgain: a flush that fails while PostgreSQL is
// away for a moment (here its COPY times out behind a lock) is tried again,
// and its records are written, not dropped. Without the retry, 25 killed
// connections could lose a pod 112 records, 64 of them successful writes,
// and a PgBouncer restart 163, with the buffer far from full.
func TestWriterTriesAFailedFlushAgain(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	out := &logtest.Buffer{}
	w := requestlog.NewWriter(requestlog.WriterConfig{DB: db, Interval: time.Hour, WriteTimeout: 200 * time.Millisecond,
		RetryBackoff: time.Second, Log: telemetry.NewLogger(out, "info")})
	defer w.Close(ctx)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	org := uuid.New()
	const n = 25
	addPosts(w, org, n)
	flushed := make(chan error, 1)
	go func() { flushed <- w.Flush(ctx) }()

	// The first attempt times out behind the lock; once the writer says it
	// will try again, the lock goes.
	for deadline := time.Now().Add(time.Minute); !strings.Contains(out.String(), "trying again"); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(out.String(), "batch dropped") || time.Now().After(deadline) {
			t.Fatalf("the failed flush was not tried again (written %d, dropped %d):\n%s", w.Written(), w.Dropped(), out)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if w.Written() != n || w.Dropped() != 0 {
		t.Fatalf("written %d, dropped %d; want all %d written:\n%s", w.Written(), w.Dropped(), n, out)
	}
	var segments int
	if err := db.NewRaw("SELECT count(*) FROM request_log_segments WHERE organization_id = ?", org).Scan(ctx, &segments); err != nil || segments == 0 {
		t.Fatalf("%d segments of the organization stored, %v", segments, err)
	}
}

// addPosts adds n records of a POST of org's to w.
func addPosts(w *requestlog.Writer, org uuid.UUID, n int) {
	for range n {
		r := requestlog.Record{CreatedAt: time.Now(), OrganizationID: &org, RequestID: uuid.NewString(),
			Method: "POST", Path: "/api/v2/clients", Status: 201, APIVersion: "v2"}
		r.Normalize()
		w.Add(r)
	}
}

// TestWriterKeepsTryingWhileItStops: the last flush of a stopping writer
// (Close) that fails while PostgreSQL is away for a moment (a lock here) is
// tried again after waits, within the deadline Close was given, and its
// records are written once PostgreSQL answers. Before, a stopping writer
// tried once more at once and dropped the batch.
func TestWriterKeepsTryingWhileItStops(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	out := &logtest.Buffer{}
	const backoff = time.Second
	w := requestlog.NewWriter(requestlog.WriterConfig{DB: db, Interval: time.Hour, WriteTimeout: 200 * time.Millisecond,
		RetryBackoff: backoff, Log: telemetry.NewLogger(out, "info")})

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	org := uuid.New()
	const n = 25
	addPosts(w, org, n)
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	closed := make(chan error, 1)
	began := time.Now()
	go func() { closed <- w.Close(closeCtx) }()

	// The stopping writer's first two attempts time out behind the lock;
	// once it says it will try a third time, the lock goes. It waited
	// between them: a stopping writer does not hammer PostgreSQL.
	for deadline := time.Now().Add(time.Minute); strings.Count(out.String(), "trying again") < 2; time.Sleep(5 * time.Millisecond) {
		if strings.Contains(out.String(), "batch dropped") || time.Now().After(deadline) {
			t.Fatalf("the stopping writer gave up (written %d, dropped %d):\n%s", w.Written(), w.Dropped(), out)
		}
	}
	if took := time.Since(began); took < backoff {
		t.Fatalf("two attempts within %v, less than the first wait (%v):\n%s", took, backoff, out)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if w.Written() != n || w.Dropped() != 0 {
		t.Fatalf("written %d, dropped %d; want all %d written:\n%s", w.Written(), w.Dropped(), n, out)
	}
}

// TestStoppingWriterGivesUpAtItsDeadline: a stopping writer whose flush
// keeps failing bounds each attempt, and its waits, by the deadline Close
// was given, and drops and counts the batch there: not after its write
// timeout (a minute here) nor after its next wait (an hour), while the
// service goes on to close the pool under it.
func TestStoppingWriterGivesUpAtItsDeadline(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	db := openDBAt(t, url)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	// The writer's sessions wait for the lock as long as its attempts let
	// them: no statement_timeout cuts them first.
	wdb, err := database.Open(ctx, url, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler(), StatementTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wdb.Close() })
	out := &logtest.Buffer{}
	w := requestlog.NewWriter(requestlog.WriterConfig{DB: wdb, Interval: time.Hour, WriteTimeout: time.Minute,
		RetryBackoff: time.Hour, Log: telemetry.NewLogger(out, "info")})

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	const n = 5
	addPosts(w, uuid.New(), n)
	closeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_ = w.Close(closeCtx) // its deadline and the drop come about together: either answer
	for deadline := time.Now().Add(30 * time.Second); w.Dropped() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("written %d, dropped %d 30 s after a Close of 2 s; want all %d dropped:\n%s", w.Written(), w.Dropped(), n, out)
		}
	}
	if w.Written() != 0 || !strings.Contains(out.String(), "batch dropped") {
		t.Fatalf("written %d; want none, and the drop logged:\n%s", w.Written(), out)
	}
}

// TestCloseCutsTheAttemptInFlight: a flush whose COPY waits on PostgreSQL
// (a lock) when Close comes is cut short when Close's context ends, given
// a second or already past, not at its write timeout (an hour here): its
// batch is dropped and counted, and the goroutine uses the pool no longer
// than Close waits for it, while the service goes on to close the pool.
func TestCloseCutsTheAttemptInFlight(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close time.Duration
	}{{"Close given a second", time.Second}, {"Close given a deadline already past", -time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			url := pgtest.NewDatabase(t)
			db := openDBAt(t, url)
			if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
				t.Fatal(err)
			}
			wdb, err := database.Open(ctx, url, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler(), StatementTimeout: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = wdb.Close() })
			out := &logtest.Buffer{}
			w := requestlog.NewWriter(requestlog.WriterConfig{DB: wdb, Interval: time.Hour, WriteTimeout: time.Hour,
				RetryBackoff: time.Second, Log: telemetry.NewLogger(out, "info")})
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			const n = 5
			addPosts(w, uuid.New(), n)
			go func() { _ = w.Flush(ctx) }()
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var waiting bool
				if err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity
					WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'COPY%')`).Scan(ctx, &waiting); err != nil {
					t.Fatal(err)
				}
				if waiting {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no COPY of the flush waited on the lock")
				}
			}
			closeCtx, cancel := context.WithTimeout(ctx, tc.close)
			defer cancel()
			_ = w.Close(closeCtx) // its context's end, and so an error
			for deadline := time.Now().Add(30 * time.Second); w.Dropped() != n; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("written %d, dropped %d 30 s after Close; want all %d dropped:\n%s", w.Written(), w.Dropped(), n, out)
				}
			}
		})
	}
}

// TestAStoppingWriterStartsItsTriesAgain: a flush that failed four times
// before Close, and waits to try a fifth, is not dropped after one more
// try at Close: its tries start again within the time Close was given, and
// its records are written once PostgreSQL answers.
func TestAStoppingWriterStartsItsTriesAgain(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	out := &logtest.Buffer{}
	w := requestlog.NewWriter(requestlog.WriterConfig{DB: db, Interval: time.Hour, WriteTimeout: 200 * time.Millisecond,
		RetryBackoff: 500 * time.Millisecond, Log: telemetry.NewLogger(out, "info")})
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	const n = 5
	addPosts(w, uuid.New(), n)
	go func() { _ = w.Flush(ctx) }()
	waitFor := func(lines int) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); strings.Count(out.String(), "trying again") < lines; time.Sleep(5 * time.Millisecond) {
			if strings.Contains(out.String(), "batch dropped") || time.Now().After(deadline) {
				t.Fatalf("waiting for %d tries (written %d, dropped %d):\n%s", lines, w.Written(), w.Dropped(), out)
			}
		}
	}
	waitFor(4) // four failed; it waits to try a fifth
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- w.Close(closeCtx) }()
	waitFor(5) // the try at Close failed too
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if w.Written() != n || w.Dropped() != 0 {
		t.Fatalf("written %d, dropped %d; want all %d written:\n%s", w.Written(), w.Dropped(), n, out)
	}
}

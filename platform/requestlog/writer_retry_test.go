package requestlog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
	"github.com/eventapi/eventapi/platform/telemetry/spantest"
)

// stalled is a writer whose table is locked by a transaction of the
// test's: its COPY waits on PostgreSQL until unlock, as behind a pooler
// restarting or a database failing over.
type stalled struct {
	t   *testing.T
	w   *requestlog.Writer
	out *logtest.Buffer // the writer's log
	db  *bun.DB         // the test's own pool, not the writer's
	tx  bun.Tx          // holds the lock
	url string          // the database's
}

// newStalled makes a fresh database with the request log's partitions,
// locks request_log_segments until unlock (or the test's end) and starts a
// writer with the given write timeout and first retry wait. With
// longStatements the writer's sessions run without the default
// statement_timeout, so that its COPY waits as long as its attempt lets
// it.
func newStalled(t *testing.T, writeTimeout, backoff time.Duration, longStatements bool) *stalled {
	t.Helper()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	s := &stalled{t: t, out: &logtest.Buffer{}, db: openDBAt(t, url), url: url}
	if _, err := requestlog.Maintain(ctx, s.db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	wdb := s.db
	if longStatements {
		var err error
		if wdb, err = database.Open(ctx, url, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler(), StatementTimeout: time.Hour}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = wdb.Close() })
	}
	s.w = requestlog.NewWriter(requestlog.WriterConfig{DB: wdb, Interval: time.Hour, WriteTimeout: writeTimeout,
		RetryBackoff: backoff, Log: telemetry.NewLogger(s.out, "info")})
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.tx = tx
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return s
}

// unlock lets the writer's COPY through.
func (s *stalled) unlock() {
	s.t.Helper()
	if err := s.tx.Rollback(); err != nil {
		s.t.Fatal(err)
	}
}

// triedAgain waits until the writer has said n times that it will try a
// flush again, and fails the test when it drops the batch first.
func (s *stalled) triedAgain(n int) {
	s.t.Helper()
	for deadline := time.Now().Add(time.Minute); strings.Count(s.out.String(), "trying again") < n; time.Sleep(5 * time.Millisecond) {
		if strings.Contains(s.out.String(), "batch dropped") || time.Now().After(deadline) {
			s.t.Fatalf("waiting for %d tries again (written %d, dropped %d):\n%s", n, s.w.Written(), s.w.Dropped(), s.out)
		}
	}
}

// copyWaits waits until a COPY of the writer waits on the lock.
func (s *stalled) copyWaits() {
	s.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := s.db.NewRaw(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'COPY%')`).Scan(context.Background(), &waiting); err != nil {
			s.t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatal("no COPY of the writer waited on the lock")
		}
	}
}

// wantWritten checks that the writer wrote all n records and dropped none.
func (s *stalled) wantWritten(n int64) {
	s.t.Helper()
	if s.w.Written() != n || s.w.Dropped() != 0 {
		s.t.Fatalf("written %d, dropped %d; want all %d written:\n%s", s.w.Written(), s.w.Dropped(), n, s.out)
	}
}

// wantDropped waits until the writer has dropped n records, for 30 s at
// most: far less than the write timeouts and waits the tests that call it
// give the writer, so that it fails when the writer waits those out.
func (s *stalled) wantDropped(n int64) {
	s.t.Helper()
	// The writer counts the drop, then logs it: wait for both.
	dropped := func() bool { return s.w.Dropped() == n && strings.Contains(s.out.String(), "batch dropped") }
	for deadline := time.Now().Add(30 * time.Second); !dropped(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("written %d, dropped %d after 30 s; want all %d dropped:\n%s", s.w.Written(), s.w.Dropped(), n, s.out)
		}
	}
	if s.w.Written() != 0 || !strings.Contains(s.out.String(), "batch dropped") {
		s.t.Fatalf("written %d; want none, and the drop logged:\n%s", s.w.Written(), s.out)
	}
}

// TestWriterTriesAFailedFlushAgain: a flush that fails while PostgreSQL is
// away for a moment (here its COPY times out behind a lock) is tried again,
// and its records are written, not dropped. Without the retry, 25 killed
// connections could lose a pod 112 records, 64 of them successful writes,
// and a PgBouncer restart 163, with the buffer far from full.
func TestWriterTriesAFailedFlushAgain(t *testing.T) {
	ctx := context.Background()
	s := newStalled(t, 200*time.Millisecond, time.Second, false)
	defer s.w.Close(ctx)
	org := uuid.New()
	const n = 25
	addPosts(s.w, org, n)
	flushed := make(chan error, 1)
	go func() { flushed <- s.w.Flush(ctx) }()

	// The first attempt times out behind the lock; once the writer says it
	// will try again, the lock goes.
	s.triedAgain(1)
	s.unlock()
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	s.wantWritten(n)
	var segments int
	if err := s.db.NewRaw("SELECT count(*) FROM request_log_segments WHERE organization_id = ?", org).Scan(ctx, &segments); err != nil || segments == 0 {
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
	const backoff = time.Second
	s := newStalled(t, 200*time.Millisecond, backoff, false)
	const n = 25
	addPosts(s.w, uuid.New(), n)
	closeCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	closed := make(chan error, 1)
	began := time.Now()
	go func() { closed <- s.w.Close(closeCtx) }()

	// The stopping writer's first two attempts time out behind the lock;
	// once it says it will try a third time, the lock goes. It waited
	// between them: a stopping writer does not hammer PostgreSQL.
	s.triedAgain(2)
	if took := time.Since(began); took < backoff {
		t.Fatalf("two attempts within %v, less than the first wait (%v):\n%s", took, backoff, s.out)
	}
	s.unlock()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	s.wantWritten(n)
}

// TestStoppingWriterGivesUpAtItsDeadline: a stopping writer whose flush
// keeps failing bounds each attempt, and its waits, by the deadline Close
// was given, and drops and counts the batch there: not after its write
// timeout (a minute here) nor after its next wait (an hour), while the
// service goes on to close the pool under it.
func TestStoppingWriterGivesUpAtItsDeadline(t *testing.T) {
	s := newStalled(t, time.Minute, time.Hour, true)
	const n = 5
	addPosts(s.w, uuid.New(), n)
	closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.w.Close(closeCtx) // its deadline and the drop come about together: either answer
	s.wantDropped(n)
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
			s, n := stalledCopy(t)
			closeCtx, cancel := context.WithTimeout(ctx, tc.close)
			defer cancel()
			_ = s.w.Close(closeCtx) // its context's end, and so an error
			s.wantDropped(n)
		})
	}
}

// TestAStoppingWriterStartsItsTriesAgain: a flush that failed four times
// before Close, and waits to try a fifth, is not dropped after one more
// try at Close: its tries start again within the time Close was given, and
// its records are written once PostgreSQL answers.
func TestAStoppingWriterStartsItsTriesAgain(t *testing.T) {
	ctx := context.Background()
	s := newStalled(t, 200*time.Millisecond, 500*time.Millisecond, false)
	const n = 5
	addPosts(s.w, uuid.New(), n)
	go func() { _ = s.w.Flush(ctx) }()
	s.triedAgain(4) // four failed; it waits to try a fifth
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- s.w.Close(closeCtx) }()
	s.triedAgain(5) // the try at Close failed too
	s.unlock()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	s.wantWritten(n)
}

// closing calls Close(ctx) on the writer from a goroutine of its own, and
// returns once the writer is stopping; Close's answer comes on the channel.
func (s *stalled) closing(ctx context.Context) <-chan error {
	s.t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- s.w.Close(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); !requestlog.Stopping(s.w); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatal("the writer did not stop within 30 s of Close")
		}
	}
	return closed
}

// attemptWaits waits until a statement of the writer waits on the lock:
// the COPY of a first attempt, the look for the batch of a later one.
func (s *stalled) attemptWaits() { s.t.Helper(); s.waiting(false) }

// cutAttempt waits until a statement of the writer waits on the lock and
// ends its session, as a pooler restarting or an administrator does: the
// attempt fails as on a lost connection.
func (s *stalled) cutAttempt() { s.t.Helper(); s.waiting(true) }

// waiting waits until a statement of the writer waits on the lock, and
// ends its session when cut.
func (s *stalled) waiting(cut bool) {
	s.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var found int
		if err := s.db.NewRaw(`SELECT count(CASE WHEN ? THEN pg_terminate_backend(pid) ELSE true END) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`, cut).Scan(context.Background(), &found); err != nil {
			s.t.Fatal(err)
		}
		if found > 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no statement of the writer waited on the lock:\n%s", s.out)
		}
	}
}

// TestAnAttemptFailingAfterCloseStartsItsTriesAgain: a flush whose fifth
// and last attempt is in flight when Close comes, and then fails (its
// session ended), is not dropped: the writer is stopping from then on, its
// tries start again within the time Close was given, and its records are
// written once PostgreSQL answers. Without that, the failure of the
// attempt begun before the stop counted against the schedule begun before
// it, and the batch was dropped at the stop.
func TestAnAttemptFailingAfterCloseStartsItsTriesAgain(t *testing.T) {
	ctx := context.Background()
	s := newStalled(t, time.Hour, 10*time.Millisecond, true) // each attempt waits on the lock until its session ends
	const n = 5
	addPosts(s.w, uuid.New(), n)
	go func() { _ = s.w.Flush(ctx) }()
	for i := 1; i < 5; i++ { // four attempts fail before the stop
		s.cutAttempt()
		s.triedAgain(i)
	}
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	s.attemptWaits()
	closed := s.closing(closeCtx) // while the fifth waits on the lock
	s.cutAttempt()
	s.triedAgain(5)
	s.unlock()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	s.wantWritten(n)
}

// TestCloseWithoutADeadlineRunsOneSchedule: a Close whose context has no
// deadline gives the stopping writer one retry schedule in all (five
// attempts of 0.5 s and waits of 0.1 to 0.8 s here), not one for each
// flush: the flush in flight at the stop tries again until that time is
// used up, and the records buffered behind it are dropped without a
// schedule of their own. Each flush ran its own, and a Close without a
// deadline could wait two schedules, about 140 s at the defaults.
func TestCloseWithoutADeadlineRunsOneSchedule(t *testing.T) {
	ctx := context.Background()
	s := newStalled(t, 500*time.Millisecond, 100*time.Millisecond, true)
	const inFlight, behind = 5, 7
	addPosts(s.w, uuid.New(), inFlight)
	go func() { _ = s.w.Flush(ctx) }()
	s.attemptWaits()
	addPosts(s.w, uuid.New(), behind)
	if s.w.Dropped() != 0 {
		t.Fatalf("the first flush was dropped before the stop, its schedule used up; the test needs a longer one:\n%s", s.out)
	}
	closed := s.closing(ctx)
	err := <-closed
	s.wantDropped(inFlight + behind)
	for line := range strings.Lines(s.out.String()) {
		if strings.Contains(line, "trying again") && strings.Contains(line, fmt.Sprintf(`"records":%d,`, behind)) {
			t.Fatalf("the records behind the flush in flight were tried again after the stop's schedule (Close: %v):\n%s", err, s.out)
		}
	}
}

// TestALaterCloseKeepsToItsDeadline: a second Close, given a second, while
// the first (no deadline) waits for a COPY stalled on a lock, bounds the
// writer too: the attempt in flight is cut short when that second ends and
// the batch dropped, as the second caller goes on to close the pool. The
// second Close returned at its deadline, but the writer went on using the
// pool for as long as the first allowed.
func TestALaterCloseKeepsToItsDeadline(t *testing.T) {
	ctx := context.Background()
	s, n := stalledCopy(t)
	first := s.closing(ctx)
	closeCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = s.w.Close(closeCtx) // its deadline and the drop come about together: either answer
	s.wantDropped(n)
	if err := <-first; err != nil {
		t.Fatalf("the first Close: %v, want nil once the writer stopped", err)
	}
}

// stalledCopy is a writer whose flush of its n records waits, its COPY
// stalled on the test's lock, with a write timeout of an hour: only a
// Close ends that attempt.
func stalledCopy(t *testing.T) (s *stalled, n int64) {
	t.Helper()
	s = newStalled(t, time.Hour, time.Second, true)
	n = 5
	addPosts(s.w, uuid.New(), int(n))
	go func() { _ = s.w.Flush(context.Background()) }()
	s.copyWaits()
	return s, n
}

// TestEveryAttemptIsAFlushTrace: each attempt of a flush is a root trace
// request_log.flush with its attempt number, and a second attempt's look
// for the first one's records (a SELECT) is a child of it beside the COPY,
// not a root trace of its own; the attempt that failed behind the lock is
// a flush span with an error.
func TestEveryAttemptIsAFlushTrace(t *testing.T) {
	spans, _ := spantest.Record(t)

	ctx := context.Background()
	s := newStalled(t, 200*time.Millisecond, 50*time.Millisecond, false)
	_ = s.w.Close(ctx)
	traced, err := database.Open(ctx, s.url, database.Options{MaxOpenConns: 2, Tracing: true, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = traced.Close() })
	s.w = requestlog.NewWriter(requestlog.WriterConfig{DB: traced, Interval: time.Hour, WriteTimeout: 200 * time.Millisecond,
		RetryBackoff: 50 * time.Millisecond, Log: telemetry.NewLogger(s.out, "info")})
	defer s.w.Close(ctx)
	spans.Reset()
	addPosts(s.w, uuid.New(), 3)
	flushed := make(chan error, 1)
	go func() { flushed <- s.w.Flush(ctx) }()
	s.triedAgain(1)
	s.unlock()
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	s.wantWritten(3)

	got := spans.GetSpans()
	flushes := map[trace.TraceID]int64{} // trace -> attempt
	stored := map[int64]bool{}           // attempt -> it found the batch already stored
	failed := 0
	for _, sp := range got {
		if sp.Parent.IsValid() {
			continue
		}
		if sp.Name != "request_log.flush" {
			t.Errorf("a root span %q: every statement of a flush belongs to its attempt's trace", sp.Name)
			continue
		}
		attempt, already := int64(0), false
		for _, a := range sp.Attributes {
			switch a.Key {
			case "eventapi.request_log.attempt":
				attempt = a.Value.AsInt64()
			case "eventapi.request_log.already_stored":
				already = a.Value.AsBool()
			}
		}
		flushes[sp.SpanContext.TraceID()], stored[attempt] = attempt, already
		if sp.Status.Code == codes.Error {
			failed++
		}
	}
	if failed == 0 || len(flushes) < 2 {
		t.Fatalf("%d flush traces, %d failed; want a failed first attempt and a later one", len(flushes), failed)
	}
	children := map[int64][]string{} // attempt -> its children's names
	for _, sp := range got {
		if attempt, ok := flushes[sp.SpanContext.TraceID()]; ok && sp.Parent.IsValid() {
			children[attempt] = append(children[attempt], sp.Name)
		}
	}
	last := int64(0)
	for _, attempt := range flushes {
		last = max(last, attempt)
	}
	// The first attempt's COPY may have landed after all, once the lock
	// went (its cancel reaches PostgreSQL late, as through PgBouncer): the
	// look then finds the batch and there is no second COPY.
	names := strings.Join(children[last], ",")
	if !strings.Contains(names, "SELECT") || strings.Contains(names, "COPY request_log_segments") == stored[last] {
		t.Errorf("attempt %d's children are %q, already stored %v; want the look (SELECT), and the COPY unless the batch was found stored",
			last, names, stored[last])
	}
}

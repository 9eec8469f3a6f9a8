package requestlog_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openDB(t *testing.T) *bun.DB {
	t.Helper()
	return openDBAt(t, pgtest.NewDatabase(t))
}

// openDBAt opens the database at url, made by pgtest.
func openDBAt(t *testing.T, url string) *bun.DB {
	t.Helper()
	db, err := database.Open(context.Background(), url, database.Options{MaxOpenConns: 6, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// partitioned creates the partitions from yesterday to tomorrow, as the
// serve process does at start.
func partitioned(t *testing.T, db *bun.DB) {
	t.Helper()
	if _, err := requestlog.Maintain(context.Background(), db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1}); err != nil {
		t.Fatal(err)
	}
}

func day(t time.Time, d int) time.Time { return t.UTC().Truncate(24*time.Hour).AddDate(0, 0, d) }

// TestRetentionDropsWholePartitions: partitions made ten days ago hold a
// record; a run with a three-day retention drops the partitions that ended
// more than three days ago (with their rows), keeps the newer ones and
// creates today's and the coming days'.
func TestRetentionDropsWholePartitions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	past := now.AddDate(0, 0, -10)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 30 * 24 * time.Hour, Ahead: 9, Now: func() time.Time { return past }}); err != nil {
		t.Fatal(err)
	}
	old := requestlog.Record{CreatedAt: past, RequestID: "old", Method: "GET", Path: "/api/v2/events", Status: 200, APIVersion: "v2"}
	old.Normalize()
	if err := requestlog.Copy(ctx, db, []requestlog.Record{old}); err != nil {
		t.Fatal(err)
	}

	res, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 2, Now: func() time.Time { return now }})
	if err != nil || res.Skipped {
		t.Fatalf("maintain: %+v %v", res, err)
	}
	parts, err := requestlog.Partitions(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for d := -11; d <= 2; d++ {
		name := requestlog.PartitionName(day(now, d))
		// Day d ends at day(now, d+1); it is dropped once that is at or
		// before now - 72h (day -3, 12:00), so days -3 and later are kept.
		wantKept := d >= -3
		if parts[name] != wantKept {
			t.Errorf("partition %s (day %+d): exists=%v, want %v", name, d, parts[name], wantKept)
		}
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM request_logs WHERE request_id = 'old'").Scan(ctx, &n); err != nil || n != 0 {
		t.Errorf("old record still there: %d %v", n, err)
	}
}

// TestConcurrentMaintenance runs the job from several "pods" at once: none
// fails, and the partitions exist once.
func TestConcurrentMaintenance(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 48 * time.Hour, Now: func() time.Time { return now }})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent run failed: %v", err)
		}
	}
	parts, err := requestlog.Partitions(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for d := -1; d <= requestlog.DefaultAhead; d++ {
		if !parts[requestlog.PartitionName(day(now, d))] {
			t.Errorf("partition for day %+d missing", d)
		}
	}
}

// TestADropThatGivesUpKeepsTheNewPartitions: a run whose drop gives up (a
// reader holds an old partition past the lock timeout) still makes the
// coming days' partitions, which writers need; the next run drops the old
// one. Creating and dropping shared one transaction, so a drop that failed
// took the new partitions with it, day after day.
func TestADropThatGivesUpKeepsTheNewPartitions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	past := now.AddDate(0, 0, -10)
	opt := func(at time.Time) requestlog.MaintainOptions {
		return requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1, Now: func() time.Time { return at }}
	}
	if _, err := requestlog.Maintain(ctx, db, opt(past)); err != nil {
		t.Fatal(err)
	}
	old := requestlog.PartitionName(day(past, 0))
	reader, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reader.ExecContext(ctx, "LOCK TABLE "+old+" IN ACCESS SHARE MODE"); err != nil {
		t.Fatal(err)
	}
	res, err := requestlog.Maintain(ctx, db, opt(now))
	if err == nil {
		t.Fatalf("the drop ran under a reader's lock: %+v", res)
	}
	parts, perr := requestlog.Partitions(ctx, db)
	if perr != nil {
		t.Fatal(perr)
	}
	for d := -1; d <= 1; d++ {
		if !parts[requestlog.PartitionName(day(now, d))] {
			t.Errorf("partition for day %+d missing after a drop gave up (%v)", d, err)
		}
	}
	if !parts[old] {
		t.Fatal("the old partition is gone though its drop gave up")
	}
	_ = reader.Rollback()
	if res, err := requestlog.Maintain(ctx, db, opt(now)); err != nil || len(res.Dropped) == 0 {
		t.Fatalf("the next run: %+v, %v; want the old partitions dropped", res, err)
	}
}

// TestWriterBatchesAndFlushes: records added to the writer are in the table
// after Flush, readable by their organization only, newest first.
func TestWriterBatchesAndFlushes(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	w := requestlog.NewWriter(requestlog.WriterConfig{DB: db, Batch: 3, Interval: time.Hour})
	org, other := uuid.New(), uuid.New()
	start := time.Now()
	for i := range 7 {
		r := requestlog.Record{CreatedAt: start.Add(time.Duration(i) * time.Millisecond), OrganizationID: &org,
			RequestID: uuid.NewString(), Method: "GET", Path: "/api/v2/events", Status: 200, APIVersion: "v2"}
		r.Normalize()
		w.Add(r)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, more, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: org}, requestlogs.Filter{}, nil, 100)
	if err != nil || more || len(got) != 7 {
		t.Fatalf("list: %d records, more=%v, %v", len(got), more, err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].CreatedAt.After(got[i-1].CreatedAt) {
			t.Errorf("not newest first at %d", i)
		}
	}
	one, err := requestlogs.Get(ctx, db, tenancy.OrganizationID{UUID: org}, got[0].ID)
	if err != nil || one == nil || one.RequestID != got[0].RequestID {
		t.Errorf("get: %+v %v", one, err)
	}
	if none, err := requestlogs.Get(ctx, db, tenancy.OrganizationID{UUID: other}, got[0].ID); err != nil || none != nil {
		t.Errorf("another organization reads the record: %+v %v", none, err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	w.Add(requestlog.Record{})
	if w.Dropped() != 1 || w.Written() != 7 {
		t.Errorf("after close: dropped %d written %d", w.Dropped(), w.Written())
	}
}

func TestIDCarriesTheMillisecond(t *testing.T) {
	at := time.Date(2026, 11, 23, 6, 0, 0, 123_456_789, time.UTC)
	id := requestlog.NewID(at)
	got, ok := requestlog.IDTime(id)
	if !ok || !got.Equal(at.Truncate(time.Millisecond)) || id.Version() != 7 {
		t.Errorf("IDTime(NewID(%v)) = %v %v (version %d)", at, got, ok, id.Version())
	}
	if _, ok := requestlog.IDTime(uuid.New()); ok {
		t.Error("a v4 id has no time")
	}
}

package tenancy

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// warnings is a slog handler's writer that signals each line it gets.
type warnings struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan struct{}
}

func (w *warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	select {
	case w.lines <- struct{}{}:
	default:
	}
	return len(p), nil
}

// TestLastUsedSurvivesAFailedWrite: a flush whose write fails (here
// PostgreSQL refuses the statement: the column is renamed away, on a
// database of the test's own) keeps the keys' times and writes them at a
// later flush once the write succeeds. They were dropped, and a key used
// once during a database outage showed no use until it was used again.
func TestLastUsedSurvivesAFailedWrite(t *testing.T) {
	ctx := context.Background()
	db, k := keyedDatabase(t, 0)
	if _, err := db.ExecContext(ctx, "ALTER TABLE api_keys RENAME COLUMN last_used_at TO last_used_away"); err != nil {
		t.Fatal(err)
	}
	w := &warnings{lines: make(chan struct{}, 1)}
	rec := newUsageRecorderEvery(db, slog.New(slog.NewTextHandler(w, nil)), time.Hour, 20*time.Millisecond)
	defer rec.close()
	used := time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC)
	rec.touch(k.ID, used)
	select {
	case <-w.lines:
	case <-time.After(30 * time.Second):
		t.Fatal("no flush failed while the column was away")
	}
	if _, err := db.ExecContext(ctx, "ALTER TABLE api_keys RENAME COLUMN last_used_away TO last_used_at"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, err := GetKey(ctx, db, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.LastUsedAt != nil && got.LastUsedAt.Equal(used) {
			return
		}
		if time.Now().After(deadline) {
			w.mu.Lock()
			defer w.mu.Unlock()
			t.Fatalf("last_used_at %v after the write succeeded again, want %v; log:\n%s", got.LastUsedAt, used, w.buf.String())
		}
	}
}

// TestLastUsedSurvivesAFailedWriteAtShutdown: the last write of a stopping
// recorder that fails (the column renamed away, as above) is tried again
// after a wait, and the key's time is written once the write succeeds
// within the shutdown's budget. It was tried once, and a key used just
// before a pod stopped during a pooler restart showed no use.
func TestLastUsedSurvivesAFailedWriteAtShutdown(t *testing.T) {
	ctx := context.Background()
	db, k := keyedDatabase(t, 0)
	if _, err := db.ExecContext(ctx, "ALTER TABLE api_keys RENAME COLUMN last_used_at TO last_used_away"); err != nil {
		t.Fatal(err)
	}
	w := &warnings{lines: make(chan struct{}, 1)}
	rec := newUsageRecorderEvery(db, slog.New(slog.NewTextHandler(w, nil)), time.Hour, time.Hour,
		func(u *usageRecorder) { u.budget = time.Minute }) // room for a loaded machine's ALTER TABLE
	used := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	rec.touch(k.ID, used)
	closed := make(chan struct{})
	go func() { rec.close(); close(closed) }()
	select {
	case <-w.lines:
	case <-closed:
		t.Fatal("the recorder stopped without a failed write")
	case <-time.After(30 * time.Second):
		t.Fatal("no write failed while the column was away")
	}
	if _, err := db.ExecContext(ctx, "ALTER TABLE api_keys RENAME COLUMN last_used_away TO last_used_at"); err != nil {
		t.Fatal(err)
	}
	<-closed
	got, err := GetKey(ctx, db, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) {
		w.mu.Lock()
		defer w.mu.Unlock()
		t.Fatalf("last_used_at %v after the stopping recorder's write could succeed again, want %v; log:\n%s", got.LastUsedAt, used, w.buf.String())
	}
}

// TestStoppingRecorderKeepsToItsBudget: a recorder stopped while a periodic
// write waits on PostgreSQL (a lock held on the keys) ends that write, and
// its final write, within shutdown's budget, not the periodic write's own
// timeout (an hour here), and returns with the keys unwritten, while the
// service goes on to close the pool under it.
func TestStoppingRecorderKeepsToItsBudget(t *testing.T) {
	ctx := context.Background()
	db, k := keyedDatabase(t, time.Hour) // its writes wait on the lock as long as their context lets them
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	rec := newUsageRecorderEvery(db, nil, time.Hour, 20*time.Millisecond, func(u *usageRecorder) {
		u.budget, u.writeTimeout = 500*time.Millisecond, time.Hour
	})
	rec.touch(k.ID, time.Now())
	// The periodic write waits on the lock.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE api_keys%')`).Scan(ctx, &waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no write of last_used_at waited on the lock")
		}
	}
	closed := make(chan struct{})
	go func() { rec.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("the recorder did not stop within 30 s, with a budget of 0.5 s")
	}
}

// keyedDatabase opens a fresh database, with statementTimeout (0: the
// default), that holds one organization and a live key of it.
func keyedDatabase(t *testing.T, statementTimeout time.Duration) (*bun.DB, *CreatedKey) {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewDatabase(t), database.Options{MaxOpenConns: 3, Pooler: pgtest.Pooler(),
		StatementTimeout: statementTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	org, err := CreateOrganization(ctx, db, "U", nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	return db, k
}

// TestAFailedFinalWriteIsLogged: the failures of a stopping recorder's
// final write are logged before close returns, also those its outage line
// held back for the interval (a failure logged just before): serve writes
// the other outage lines before the recorder's final write runs, so a
// failure held back there was never written and a pod's last keys' uses
// were lost without a word.
func TestAFailedFinalWriteIsLogged(t *testing.T) {
	ctx := context.Background()
	db, k := keyedDatabase(t, 0)
	if _, err := db.ExecContext(ctx, "ALTER TABLE api_keys RENAME COLUMN last_used_at TO last_used_away"); err != nil {
		t.Fatal(err)
	}
	w := &warnings{lines: make(chan struct{}, 1)}
	rec := newUsageRecorderEvery(db, slog.New(slog.NewTextHandler(w, nil)), time.Hour, 20*time.Millisecond,
		func(u *usageRecorder) { u.budget = 100 * time.Millisecond })
	rec.touch(k.ID, time.Now())
	select {
	case <-w.lines: // the outage's first line: the next failures are held back
	case <-time.After(30 * time.Second):
		t.Fatal("no write failed while the column was away")
	}
	w.mu.Lock()
	before := w.buf.Len()
	w.mu.Unlock()
	rec.close()
	w.mu.Lock()
	after := w.buf.String()[before:]
	w.mu.Unlock()
	if !strings.Contains(after, "write api key last_used_at") || !strings.Contains(after, "1 keys' last use not written") {
		t.Errorf("the stopping recorder's failed final write left no line with its keys; after the first line:\n%q", after)
	}
}

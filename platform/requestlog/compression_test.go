package requestlog_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/requestlog"
)

// compressionMigration is the migration that makes the request log's
// arrays and the change feed's data lz4-compressed.
const compressionMigration = "../database/migrations/20261212010000_lz4_compression.tx."

// TestBusySegmentsAreLZ4Compressed writes a busy organization's flush (a
// full segment of long paths and user agents, tens of kilobytes) into the
// partitions the serve process makes, and reads how PostgreSQL stored its
// arrays: lz4, not the server's default pglz (docs/observability.md,
// "Storage: segments").
func TestBusySegmentsAreLZ4Compressed(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	partitioned(t, db)
	org, key := uuid.New(), uuid.New()
	now := time.Now().UTC()
	text := func(s string) *string { return &s }
	recs := make([]requestlog.Record, requestlog.MaxSegment)
	for i := range recs {
		at := now.Add(-time.Duration(len(recs)-i) * time.Millisecond)
		r := requestlog.Record{CreatedAt: at, OrganizationID: &org, KeyID: &key, KeyPrefix: text("svc_live_abc"),
			Method: "GET", Path: fmt.Sprintf("/api/v2/equipment/%s", uuid.New()), Route: text("/api/v2/equipment/{id}"),
			Status: 200, DurationMS: float64(i) / 7, APIVersion: "v2", IP: text("10.0.0.1"),
			UserAgent: text("loadplanner/4.2 (" + strings.Repeat("x", i%40) + ")")}
		r.ID = requestlog.NewID(at)
		r.RequestID = r.ID.String()
		r.Normalize()
		recs[i] = r
	}
	if err := requestlog.Copy(ctx, db, recs); err != nil {
		t.Fatal(err)
	}
	var paths, agents string
	if err := db.NewRaw(`SELECT coalesce(pg_column_compression(paths), 'none'), coalesce(pg_column_compression(user_agents), 'none')
		FROM request_log_segments WHERE organization_id = ?`, org).Scan(ctx, &paths, &agents); err != nil {
		t.Fatal(err)
	}
	if paths != "lz4" || agents != "lz4" {
		t.Errorf("a segment of %d records stored its paths %s and user agents %s, want lz4", len(recs), paths, agents)
	}
}

// TestCompressionMigrationReachesEveryPartition runs the migration down and
// up again over partitions that exist: each direction sets the arrays of
// the parent and of every partition, and the change feed's data, since a
// partitioned table passes a column's compression only to partitions made
// after it.
func TestCompressionMigrationReachesEveryPartition(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	partitioned(t, db)
	run := func(direction string) {
		t.Helper()
		if err := runCompression(db, direction); err != nil {
			t.Fatalf("%s: %v", direction, err)
		}
	}
	// methods reads every table's compression of the columns the
	// migration sets: "l" for lz4, "" for the server's default.
	methods := func() map[string]string {
		t.Helper()
		var rows []struct {
			Table  string
			Column string
			Method string
		}
		if err := db.NewRaw(`/* every organization: the schema */
			SELECT c.relname AS "table", a.attname AS "column", a.attcompression::text AS method
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			WHERE ((c.oid = 'request_log_segments'::regclass
			        OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'request_log_segments'::regclass))
			       AND a.attname IN ('ids', 'paths', 'user_agents', 'replayed'))
			   OR (c.oid = 'changes'::regclass AND a.attname = 'data')`).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rows {
			got[r.Table+"."+r.Column] = r.Method
		}
		return got
	}
	check := func(when, want string) {
		t.Helper()
		got := methods()
		// The parent, yesterday's to tomorrow's partitions, four columns
		// each, and changes.data.
		if len(got) < 4*4+1 {
			t.Fatalf("%s: %d columns read, want the parent's, at least three partitions' and changes.data: %v", when, len(got), got)
		}
		for col, m := range got {
			if m != want {
				t.Errorf("%s: %s is compressed with %q, want %q", when, col, m, want)
			}
		}
	}
	check("as migrated", "l")
	run("down")
	check("after down", "")
	run("up")
	check("after up", "l")
}

// runCompression runs the compression migration's up or down file in a
// transaction without the pool's timeouts, as the migrator does.
func runCompression(db *bun.DB, direction string) error {
	sql, err := os.ReadFile(compressionMigration + direction + ".sql")
	if err != nil {
		return err
	}
	return db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true)"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, string(sql))
		return err
	})
}

// TestCompressionMigrationHoldsNoTableWhileItWaits: while a long reader
// holds changes, the migration waits for it, and meanwhile a reader and the
// writer of the request log get through (at most one 500 ms attempt of the
// migration's lock ahead of them), the migration still waiting. It takes
// every table's lock in one attempt that gives all back when it times out;
// taken one after the other, the request log stayed locked while the
// migration waited for changes, for as long as the reader ran.
func TestCompressionMigrationHoldsNoTableWhileItWaits(t *testing.T) {
	ctx := context.Background()
	db := openPooled(t)
	partitioned(t, db)
	if err := runCompression(db, "down"); err != nil {
		t.Fatal(err)
	}
	reader := holding(t, db, "SELECT count(*) FROM changes")
	done := make(chan error, 1)
	go func() { done <- runCompression(db, "up") }()
	waitUntil(t, "the migration to wait for changes", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the migration ended (%v) without waiting for the reader", err)
		default:
		}
		var n int
		if err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ~ 'lz4'`).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})

	others := make(chan error, 2)
	go func() {
		var n int
		others <- db.NewRaw("SELECT count(*) FROM request_log_segments").Scan(ctx, &n)
	}()
	go func() {
		org := uuid.New()
		r := requestlog.Record{CreatedAt: time.Now().UTC(), OrganizationID: &org, RequestID: uuid.NewString(), Method: "GET",
			Path: "/api/v2/events", Status: 200, APIVersion: "v2"}
		r.Normalize()
		others <- requestlog.Copy(ctx, db, []requestlog.Record{r})
	}()
	for range 2 {
		select {
		case err := <-others:
			if err != nil {
				t.Fatalf("a reader or the writer of the request log failed beside the migration: %v", err)
			}
		case err := <-done:
			t.Fatalf("the migration ended (%v) while the reader held changes", err)
		case <-time.After(time.Minute): // a guard against a hang; nothing is measured against it
			t.Fatal("the request log's reader or writer still waits, after a minute, behind the migration")
		}
	}
	_ = reader.Rollback()
	if err := <-done; err != nil {
		t.Fatalf("the migration, once the reader is gone: %v", err)
	}
}

// TestCompressionMigrationPassesOverAPendingDetach: a partition whose
// concurrent detach was interrupted (the partition job gives one up after
// 150 ms, and a later run finishes it) is left out, where altering it
// failed the migration ("cannot alter partition … with an incomplete
// detach"); the other partitions get lz4, in both directions.
func TestCompressionMigrationPassesOverAPendingDetach(t *testing.T) {
	db := openPooled(t)
	partitioned(t, db)
	pending := requestlog.PartitionName(day(time.Now(), -1))
	leavePending(t, db, pending)
	for _, tc := range []struct{ direction, want string }{{"down", ""}, {"up", "l"}} {
		if err := runCompression(db, tc.direction); err != nil {
			t.Fatalf("%s beside %s: %v", tc.direction, pending, err)
		}
		var methods []string
		if err := db.NewRaw(`/* every organization: the schema */
			SELECT DISTINCT a.attcompression::text FROM pg_inherits i JOIN pg_attribute a ON a.attrelid = i.inhrelid
			WHERE i.inhparent = 'request_log_segments'::regclass AND NOT i.inhdetachpending AND a.attname = 'paths'`).
			Scan(context.Background(), &methods); err != nil {
			t.Fatal(err)
		}
		if len(methods) != 1 || methods[0] != tc.want {
			t.Errorf("after %s, the other partitions' paths are compressed with %q, want %q", tc.direction, methods, tc.want)
		}
	}
}

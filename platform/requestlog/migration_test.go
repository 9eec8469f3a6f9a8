package requestlog_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// TestSegmentMigrationKeepsTheRecords runs migration
// 20261128010000_request_log_segments down and up again over records of
// every shape: down turns the segments back into a row per record, up turns
// the rows into segments again, and the view request_logs shows the same
// rows before, between and after (the former table's own rows, between).
func TestSegmentMigrationKeepsTheRecords(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Now().UTC()
	partitioned(t, db)
	org, key := uuid.New(), uuid.New()
	text := func(s string) *string { return &s }
	var recs []requestlog.Record
	for i := range 50 {
		at := now.Add(-time.Duration(i*50) * time.Millisecond).Add(-time.Duration(i) * time.Microsecond)
		r := requestlog.Record{CreatedAt: at, OrganizationID: &org, KeyID: &key, KeyPrefix: text("svc_live_abc"),
			Method: "GET", Path: "/api/v2/events/ü", Route: text("/api/v2/events"), Status: []int{200, 429, 500}[i%3],
			DurationMS: float64(i) / 7, APIVersion: []string{"v2", "v1"}[i%2], IP: text("10.0.0.1")}
		r.ID = requestlog.NewID(at)
		r.RequestID = r.ID.String()
		switch i % 5 {
		case 1:
			r.RequestID = "legacy-" + r.ID.String()
		case 2:
			r.IdempotencyKey, r.IdempotentReplayed = text("k"), true
		case 3:
			r.ErrorCode, r.UserAgent = text("rate_limited"), text("agent (日本)")
		case 4:
			r.OrganizationID, r.KeyID, r.KeyPrefix = nil, nil, nil
		}
		r.Normalize()
		recs = append(recs, r)
	}
	if err := requestlog.Copy(ctx, db, recs); err != nil {
		t.Fatal(err)
	}
	rows := func(what string) string {
		t.Helper()
		var out string
		if err := db.NewRaw(`/* every organization: the whole log */
			SELECT string_agg(to_jsonb(r)::text, E'\n' ORDER BY created_at, id) FROM request_logs r`).Scan(ctx, &out); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return out
	}
	run := func(file string) {
		t.Helper()
		sql, err := os.ReadFile("../database/migrations/20261128010000_request_log_segments.tx." + file + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, string(sql))
			return err
		}); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	before := rows("segments")
	run("down")
	var kind string
	if err := db.NewRaw("SELECT relkind::text FROM pg_class WHERE relname = 'request_logs'").Scan(ctx, &kind); err != nil || kind != "p" {
		t.Fatalf("after down, request_logs is %q (%v), want a partitioned table", kind, err)
	}
	if between := rows("rows"); between != before {
		t.Fatalf("down changed the records:\n before %s\n after  %s", before, between)
	}
	run("up")
	if after := rows("segments again"); after != before {
		t.Fatalf("up changed the records:\n before %s\n after  %s", before, after)
	}
	var segs int
	if err := db.NewRaw("/* every organization */ SELECT count(*) FROM request_log_segments").Scan(ctx, &segs); err != nil || segs == 0 || segs >= len(recs) {
		t.Fatalf("%d segments for %d records (%v)", segs, len(recs), err)
	}
	got, _, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: org}, requestlogs.Filter{Status: 429}, nil, 100)
	if err != nil || len(got) == 0 {
		t.Fatalf("list after the migration: %d records, %v", len(got), err)
	}
}

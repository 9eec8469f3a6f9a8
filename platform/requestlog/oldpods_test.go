package requestlog_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// TestOldPodsCopyIntoTheView writes records as pods of 2.7.2 and older do,
// a binary COPY of request_logs' seventeen columns (migration
// 20261129030000, docs/helm.md "Upgrades and migrations"), while the
// current pods keep the partitions: each record reads back through List
// with every field, and a request id that is not the record's id keeps its
// own value.
func TestOldPodsCopyIntoTheView(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	db := openDBAt(t, url)
	partitioned(t, db)
	org, key := uuid.New(), uuid.New()
	now := time.Now().UTC().Truncate(time.Microsecond)
	text := func(s string) *string { return &s }
	want := []requestlog.Record{
		{CreatedAt: now.Add(-2 * time.Second), Method: "GET", Path: "/api/v2/events", Route: text("/api/v2/events"),
			Status: 200, DurationMS: 1.25, APIVersion: "v2", IP: text("10.0.0.1"), UserAgent: text("planner/1.0")},
		{CreatedAt: now.Add(-time.Second), Method: "POST", Path: "/api/v2/clients", Route: text("/api/v2/clients"),
			Status: 429, DurationMS: 0.5, APIVersion: "v2", ErrorCode: text("rate_limited"),
			IdempotencyKey: text("k-1"), IdempotentReplayed: true},
		{CreatedAt: now, Method: "PATCH", Path: "/api/v1/equipment/x", Route: text("/api/v1/equipment/{id}"),
			Status: 400, DurationMS: 3, APIVersion: "v1", ErrorCode: text("bad_request")},
	}
	rows := make([][]any, len(want))
	for i := range want {
		r := &want[i]
		r.ID = requestlog.NewID(r.CreatedAt)
		r.RequestID = r.ID.String()
		if i == 1 {
			r.RequestID = "legacy-" + r.ID.String()
		}
		r.OrganizationID, r.KeyID, r.KeyPrefix = &org, &key, text("svc_live_abc")
		rows[i] = []any{r.ID, r.CreatedAt, r.OrganizationID, r.RequestID, r.Method, r.Path, r.Route, int16(r.Status),
			r.DurationMS, r.ErrorCode, r.KeyID, r.KeyPrefix, r.IdempotencyKey, r.IdempotentReplayed, r.IP, r.UserAgent,
			r.APIVersion}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	columns := []string{"id", "created_at", "organization_id", "request_id", "method", "path", "route", "status",
		"duration_ms", "error_code", "key_id", "key_prefix", "idempotency_key", "idempotent_replayed", "ip",
		"user_agent", "api_version"}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"request_logs"}, columns, pgx.CopyFromRows(rows)); err != nil {
		t.Fatalf("COPY request_logs as a 2.7.2 pod: %v", err)
	}
	got, _, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: org}, requestlogs.Filter{}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("listed %d records, want %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[len(want)-1-i] // newest first
		g.CreatedAt = g.CreatedAt.UTC()
		if g.ID != w.ID || !g.CreatedAt.Equal(w.CreatedAt) || g.RequestID != w.RequestID || g.Method != w.Method ||
			g.Path != w.Path || *g.Route != *w.Route || g.Status != w.Status || g.DurationMS != w.DurationMS ||
			g.APIVersion != w.APIVersion || g.IdempotentReplayed != w.IdempotentReplayed ||
			str(g.ErrorCode) != str(w.ErrorCode) || str(g.IdempotencyKey) != str(w.IdempotencyKey) ||
			str(g.IP) != str(w.IP) || str(g.UserAgent) != str(w.UserAgent) || *g.KeyID != key || str(g.KeyPrefix) != "svc_live_abc" {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if rec, err := requestlogs.Get(ctx, db, tenancy.OrganizationID{UUID: org}, want[1].ID); err != nil || rec == nil || rec.RequestID != want[1].RequestID {
		t.Errorf("Get of the replayed record: %+v, %v", rec, err)
	}
}

// str is *s, or "" for nil.
func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

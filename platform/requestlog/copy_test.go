package requestlog_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/requestlog"
)

// TestBinaryCopyMatchesPgx copies the same records with Copy (the writer's
// own binary encoding) and with pgx's CopyFrom, which encodes each value
// through pgx's codecs, and compares the stored rows column by column:
// NULLs and values, times to the microsecond, text with multi-byte
// characters, negative and fractional durations.
func TestBinaryCopyMatchesPgx(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Now()
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	org, key := uuid.New(), uuid.New()
	text := func(s string) *string { return &s }
	base := []requestlog.Record{
		{CreatedAt: now, RequestID: "r1", Method: "GET", Path: "/api/v2/events", Status: 200, DurationMS: 1.25, APIVersion: "v2"},
		{CreatedAt: now.Add(-time.Hour).Add(123456 * time.Nanosecond), OrganizationID: &org, KeyID: &key, RequestID: "r2",
			Method: "POST", Path: "/api/v2/clients/é/ü", Route: text("/api/v2/clients"), Status: 422, DurationMS: 0.001,
			ErrorCode: text("validation_error"), KeyPrefix: text("svc_live_abc"), IdempotencyKey: text("k-1"),
			IdempotentReplayed: true, IP: text("2001:db8::1"), UserAgent: text("agent/1 (日本)"), APIVersion: "v1"},
		{CreatedAt: now.Add(-24 * time.Hour), RequestID: "r3", Method: "DELETE", Path: "", Route: text(""), Status: math.MaxInt16,
			DurationMS: -3.5, UserAgent: text(""), APIVersion: "v2"},
	}
	for i := range base {
		base[i].Normalize()
	}
	rows := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		var list []struct {
			RequestID string `bun:"request_id"`
			Row       string `bun:"row"`
		}
		if err := db.NewRaw(`SELECT request_id, to_jsonb(r)::text AS row FROM request_logs r ORDER BY request_id`).Scan(ctx, &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list {
			got[r.RequestID] = r.Row
		}
		if _, err := db.NewRaw("DELETE FROM request_logs").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		return got
	}

	if err := requestlog.Copy(ctx, db, base); err != nil {
		t.Fatal(err)
	}
	ours := rows()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		_, err := database.PgxConn(dc).CopyFrom(ctx, pgx.Identifier{"request_logs"}, requestlog.CopyColumns, pgx.CopyFromSlice(len(base),
			func(i int) ([]any, error) {
				r := &base[i]
				return []any{r.ID, r.CreatedAt, pgUUID(r.OrganizationID), r.RequestID, r.Method, r.Path, r.Route,
					int16(r.Status), r.DurationMS, r.ErrorCode, pgUUID(r.KeyID), r.KeyPrefix, r.IdempotencyKey,
					r.IdempotentReplayed, r.IP, r.UserAgent, r.APIVersion}, nil
			}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	theirs := rows()
	if len(ours) != len(base) {
		t.Fatalf("Copy stored %d rows of %d", len(ours), len(base))
	}
	for id, want := range theirs {
		if ours[id] != want {
			t.Errorf("%s:\n Copy: %s\n pgx:  %s", id, ours[id], want)
		}
	}
}

func pgUUID(id *uuid.UUID) pgtype.UUID {
	if id == nil {
		return pgtype.UUID{}
	}
	return pgtype.UUID{Bytes: *id, Valid: true}
}

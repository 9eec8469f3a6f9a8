package requestlog_test

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// TestSegmentsRoundTrip copies records of every shape through Copy (the
// writer's own binary encoding of segments) and reads each back, through
// Get and List and through the view request_logs: NULLs and values, times
// to the microsecond, text with multi-byte characters, negative and
// fractional durations, request ids that are and are not the record's id,
// replays, records without an organization, and segments cut by MaxSpan.
func TestSegmentsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Now().UTC()
	partitioned(t, db)
	org, key := uuid.New(), uuid.New()
	text := func(s string) *string { return &s }
	rec := func(r requestlog.Record) requestlog.Record {
		if r.RequestID == "" {
			r.ID = requestlog.NewID(r.CreatedAt)
			r.RequestID = r.ID.String()
		}
		r.Normalize()
		return r
	}
	mine := []requestlog.Record{
		rec(requestlog.Record{CreatedAt: now, OrganizationID: &org, KeyID: &key, KeyPrefix: text("svc_live_abc"),
			Method: "GET", Path: "/api/v2/events", Route: text("/api/v2/events"), Status: 200, DurationMS: 1.25, APIVersion: "v2",
			IP: text("10.0.0.1"), UserAgent: text("curl/8")}),
		rec(requestlog.Record{CreatedAt: now.Add(-time.Millisecond), OrganizationID: &org, KeyID: &key, KeyPrefix: text("svc_live_abc"),
			Method: "POST", Path: "/api/v2/clients/é/ü", Route: text("/api/v2/clients"), Status: 422, DurationMS: 0.001,
			ErrorCode: text("validation_error"), IdempotencyKey: text("k-1"), IdempotentReplayed: true,
			IP: text("2001:db8::1"), UserAgent: text("agent/1 (日本)"), APIVersion: "v2"}),
		// The same microsecond as the first: ordered by id.
		rec(requestlog.Record{CreatedAt: now, OrganizationID: &org, KeyID: &key, KeyPrefix: text("svc_live_abc"),
			Method: "DELETE", Path: "", Route: text(""), Status: math.MaxInt16, DurationMS: -3.5, APIVersion: "v2"}),
		// A request id that is not the record's id, and v1.
		rec(requestlog.Record{CreatedAt: now.Add(-2 * time.Second), ID: requestlog.NewID(now.Add(-2 * time.Second)),
			RequestID: "legacy-request", OrganizationID: &org, KeyID: &key, KeyPrefix: text("svc_live_abc"),
			Method: "GET", Path: "/api/v1/jobs", Status: 200, DurationMS: 2, APIVersion: "v1"}),
		// Past MaxSpan from the others: its own segment.
		rec(requestlog.Record{CreatedAt: now.Add(-requestlog.MaxSpan - time.Second), OrganizationID: &org, KeyID: &key,
			KeyPrefix: text("svc_live_abc"), Method: "GET", Path: "/api/v2/health", Status: 200, APIVersion: "v2"}),
	}
	refused := rec(requestlog.Record{CreatedAt: now, Method: "GET", Path: "/api/v2/events", Status: 401,
		ErrorCode: text("invalid_credentials"), APIVersion: "v2"})
	all := append([]requestlog.Record{refused}, mine...)
	if err := requestlog.Copy(ctx, db, append([]requestlog.Record(nil), all...)); err != nil {
		t.Fatal(err)
	}
	for _, want := range mine {
		got, err := requestlogs.Get(ctx, db, tenancy.OrganizationID{UUID: org}, want.ID)
		if err != nil || got == nil {
			t.Fatalf("get %s: %v %v", want.RequestID, got, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("get %s:\n got  %+v\n want %+v", want.RequestID, *got, want)
		}
	}
	listed, more, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: org}, requestlogs.Filter{}, nil, 100)
	if err != nil || more || len(listed) != len(mine) {
		t.Fatalf("list: %d records (more %v), %v", len(listed), more, err)
	}
	for i := 1; i < len(listed); i++ {
		a, b := listed[i-1], listed[i]
		if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID.String() < b.ID.String()) {
			t.Errorf("list out of order at %d: %s then %s", i, a.RequestID, b.RequestID)
		}
	}
	var n int
	if err := db.NewRaw(`/* every organization: a refused request has none */
		SELECT count(*) FROM request_logs WHERE organization_id IS NULL AND request_id = ? AND status = 401
		AND error_code = 'invalid_credentials' AND key_id IS NULL`, refused.RequestID).Scan(ctx, &n); err != nil || n != 1 {
		t.Errorf("the refused request through the view: %d rows, %v", n, err)
	}
}

package requestlogs_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// lastQuery is a bun hook that keeps the last statement's text.
type lastQuery struct {
	mu sync.Mutex
	q  string
}

func (l *lastQuery) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	l.mu.Lock()
	l.q = e.Query
	l.mu.Unlock()
	return ctx
}

func (l *lastQuery) AfterQuery(context.Context, *bun.QueryEvent) {}

func (l *lastQuery) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.q
}

// TestFiltersUseIndexes: each indexed filter of List finds exactly org A's
// matching records, and the statement List sends reads the segments through
// the index meant for it (the plan read with sequential scans disabled,
// since even with its bulk a test table is small enough to scan): the
// partial error index (the partition's second index, …_idx1) for status and
// status-class filters, the organization's index within one minute of the
// millisecond of a request id (a UUIDv7, api/rest.EnsureRequestID), and the
// organization's index with the segment's key_id checked on its rows. A
// request id of another shape (logged before request ids were UUIDv7) is
// still found, by a scan of the organization's range.
func TestFiltersUseIndexes(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	now := time.Now().UTC()
	partitioned(t, db)
	orgA, orgB, keyA, keyB := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	var recs []requestlog.Record
	// add logs a request; reqID "" gives it a request id as the app does
	// (the record's own UUIDv7 id).
	add := func(org, key uuid.UUID, reqID string, status int) string {
		at := now.Add(-time.Duration(len(recs)) * time.Millisecond)
		r := requestlog.Record{CreatedAt: at, RequestID: reqID,
			Method: "GET", Path: "/api/v2/events", Status: status, APIVersion: "v2", OrganizationID: &org, KeyID: &key}
		if reqID == "" {
			r.ID = requestlog.NewID(at)
			r.RequestID = r.ID.String()
		}
		r.Normalize()
		recs = append(recs, r)
		return r.RequestID
	}
	aOK := add(orgA, keyA, "", 200)
	add(orgA, keyA, "a-limited", 429)
	add(orgA, keyA, "a-failed", 500)
	legacy := add(orgA, keyA, uuid.NewString(), 200) // a v4 request id, as logged before they were v7
	add(orgB, keyB, "b-limited", 429)
	add(orgB, keyB, aOK, 200)    // the same request id in another organization
	add(orgB, keyB, legacy, 200) // and the legacy one
	// The bulk: org A's successful requests with another key, as a busy
	// organization's log would hold, so the planner sees what the indexes
	// skip.
	other := uuid.New()
	for i := range 3000 {
		add(orgA, other, "bulk-"+strconv.Itoa(i), 200)
	}
	if err := requestlog.Copy(ctx, db, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE request_log_segments"); err != nil {
		t.Fatal(err)
	}
	seen := &lastQuery{}
	db = db.WithQueryHook(seen)

	tests := []struct {
		name string
		f    requestlogs.Filter
		want string // request ids, newest first
		// inPlan are parts of the plan: the suffix of the partition index it
		// uses, and for a request id the millisecond's bound in its condition.
		inPlan []string
	}{
		{"status", requestlogs.Filter{Status: 429}, "a-limited", []string{"organization_id_last_at_idx1"}},
		{"status class", requestlogs.Filter{StatusClass: 5}, "a-failed", []string{"organization_id_last_at_idx1"}},
		{"request id", requestlogs.Filter{RequestID: aOK}, aOK, []string{"organization_id_last_at_idx ", "Index Cond: ((organization_id = ", ") AND (last_at >= ", ") AND (last_at < "}},
		{"legacy request id", requestlogs.Filter{RequestID: legacy}, legacy, nil},
		{"key", requestlogs.Filter{KeyID: &keyA}, aOK + " a-limited a-failed " + legacy, []string{"organization_id_last_at_idx ", "Filter: (key_id = "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: orgA}, tt.f, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.RequestID)
			}
			if strings.Join(ids, " ") != tt.want {
				t.Errorf("got %v, want %s", ids, tt.want)
			}
			plan := explain(t, db, seen.get())
			for _, part := range tt.inPlan {
				if !strings.Contains(plan, part) {
					t.Errorf("plan lacks %q:\n%s", part, plan)
				}
			}
		})
	}
}

func explain(t *testing.T, db *bun.DB, query string) string {
	t.Helper()
	var lines []string
	err := db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		return tx.NewRaw("EXPLAIN "+query).Scan(ctx, &lines)
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

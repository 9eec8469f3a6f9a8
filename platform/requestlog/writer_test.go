package requestlog_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// TestWriterBoundsItsBuffer: records gather in chunks of one batch, and
// every record added is either written once or dropped and counted; beyond
// the buffer, records are dropped; after a drain the buffer (and its reused
// chunks) takes as many again.
func TestWriterBoundsItsBuffer(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		buffer int
		batch  int
		adds   []int
		// exact: no batch fills before the buffer does, so the writer is
		// never woken early and the drops are exactly the records past the
		// buffer. Otherwise a full batch may be written while records are
		// still added, and fewer are dropped.
		exact bool
	}{
		{name: "one chunk, never woken", buffer: 10, batch: 500, adds: []int{12, 7, 10}, exact: true},
		{name: "chunks of three", buffer: 10, batch: 3, adds: []int{12, 7, 10, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := requestlog.NewWriter(requestlog.WriterConfig{DB: db, Buffer: c.buffer, Batch: c.batch, Interval: time.Hour})
			defer w.Close(ctx)
			org := uuid.New()
			added, wantDrops := 0, int64(0)
			for _, n := range c.adds {
				for range n {
					r := requestlog.Record{CreatedAt: time.Now(), OrganizationID: &org, RequestID: uuid.NewString(),
						Method: "GET", Path: "/api/v2/events", Status: 200, APIVersion: "v2"}
					r.Normalize()
					w.Add(r)
				}
				added += n
				wantDrops += int64(max(0, n-c.buffer))
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				if w.Written()+w.Dropped() != int64(added) || (c.exact && w.Dropped() != wantDrops) || w.Dropped() > wantDrops {
					t.Fatalf("after %d added: written %d, dropped %d (past the buffer: %d)", added, w.Written(), w.Dropped(), wantDrops)
				}
			}
			got, _, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: org}, requestlogs.Filter{}, nil, 100)
			if err != nil || int64(len(got)) != w.Written() {
				t.Fatalf("list: %d records of %d written, %v", len(got), w.Written(), err)
			}
			seen := map[string]bool{}
			for _, r := range got {
				if seen[r.RequestID] {
					t.Fatalf("record %s written twice", r.RequestID)
				}
				seen[r.RequestID] = true
			}
		})
	}
}

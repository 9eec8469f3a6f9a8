package requestlogs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// TestListPagesMatchTheRecords writes an organization's records spread over
// many segments (several keys and API versions, flushes of different
// sizes, records past MaxSpan from each other, equal instants) beside
// another organization's, then follows List's cursor through every page for
// a set of filters and page sizes: the pages must be exactly the matching
// records, newest first by (created_at, id), each once. With far more
// segments than List's first step reads, pages need several steps, and
// small pages stop early.
func TestListPagesMatchTheRecords(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	now := time.Now().UTC().Truncate(time.Second)
	partitioned(t, db)
	orgA, orgB := uuid.New(), uuid.New()
	keys := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	routes := []string{"/api/v2/events", "/api/v2/clients/{id}", "/api/v1/jobs"}
	mine := writeOverlapping(t, db, rand.New(rand.NewPCG(1, 2)), now, orgA, orgB, keys, routes)
	var segs int
	if err := db.NewRaw("SELECT count(*) FROM request_log_segments WHERE organization_id = ?", orgA).Scan(ctx, &segs); err != nil {
		t.Fatal(err)
	}
	if segs < 4*32 {
		t.Fatalf("only %d segments: the test needs more than List's first steps", segs)
	}

	since, until := now.Add(-8*time.Minute), now.Add(-3*time.Minute)
	filters := []struct {
		name  string
		f     requestlogs.Filter
		match func(requestlog.Record) bool
	}{
		{"all", requestlogs.Filter{}, func(requestlog.Record) bool { return true }},
		{"429", requestlogs.Filter{Status: 429}, func(r requestlog.Record) bool { return r.Status == 429 }},
		{"4xx", requestlogs.Filter{StatusClass: 4}, func(r requestlog.Record) bool { return r.Status/100 == 4 }},
		{"2xx", requestlogs.Filter{StatusClass: 2}, func(r requestlog.Record) bool { return r.Status/100 == 2 }},
		{"key", requestlogs.Filter{KeyID: &keys[1]}, func(r requestlog.Record) bool { return *r.KeyID == keys[1] }},
		{"route and method", requestlogs.Filter{Route: routes[1], Method: "POST"},
			func(r requestlog.Record) bool { return *r.Route == routes[1] && r.Method == "POST" }},
		{"since and until", requestlogs.Filter{Since: &since, Until: &until},
			func(r requestlog.Record) bool { return !r.CreatedAt.Before(since) && r.CreatedAt.Before(until) }},
		{"request id", requestlogs.Filter{RequestID: mine[len(mine)/2].RequestID},
			func(r requestlog.Record) bool { return r.RequestID == mine[len(mine)/2].RequestID }},
	}
	for _, fc := range filters {
		var want []string
		for _, r := range mine {
			if fc.match(r) {
				want = append(want, r.RequestID)
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: the data matches nothing", fc.name)
		}
		for _, limit := range []int{1, 7, 100} {
			t.Run(fmt.Sprintf("%s/limit %d", fc.name, limit), func(t *testing.T) {
				var got []string
				var after *storage.Cursor
				for page := 0; ; page++ {
					if page > len(want)+1 {
						t.Fatalf("more pages than records")
					}
					recs, more, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: orgA}, fc.f, after, limit)
					if err != nil {
						t.Fatal(err)
					}
					if len(recs) > limit || (more && len(recs) != limit) {
						t.Fatalf("page %d: %d records, more %v", page, len(recs), more)
					}
					for _, r := range recs {
						got = append(got, r.RequestID)
					}
					if !more {
						break
					}
					last := recs[len(recs)-1]
					after = &storage.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("got %d records, want %d\n got  %v\n want %v", len(got), len(want), head(got), head(want))
				}
			})
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 8)] }

// TestTimeFiltersBelowAMicrosecond: records are stored to the microsecond,
// and since (inclusive) and until (exclusive) are compared at that precision
// rounded up, so an instant between two microseconds neither lets in a
// record before since nor leaves out one before until.
func TestTimeFiltersBelowAMicrosecond(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	partitioned(t, db)
	org, key := uuid.New(), uuid.New()
	at := time.Now().UTC().Truncate(time.Second).Add(-time.Minute).Add(358923 * time.Microsecond)
	route := "/api/v2/events"
	r := requestlog.Record{CreatedAt: at, OrganizationID: &org, KeyID: &key, Method: "GET", Path: route,
		Route: &route, Status: 200, APIVersion: "v2"}
	r.ID = requestlog.NewID(at)
	r.RequestID = r.ID.String()
	r.Normalize()
	if err := requestlog.Copy(ctx, db, []requestlog.Record{r}); err != nil {
		t.Fatal(err)
	}
	after, before := at.Add(time.Nanosecond), at.Add(-time.Nanosecond)
	for _, c := range []struct {
		name string
		f    requestlogs.Filter
		want bool
	}{
		{"since the record's instant", requestlogs.Filter{Since: &at}, true},
		{"since a nanosecond after it", requestlogs.Filter{Since: &after}, false},
		{"since a nanosecond before it", requestlogs.Filter{Since: &before}, true},
		{"until the record's instant", requestlogs.Filter{Until: &at}, false},
		{"until a nanosecond after it", requestlogs.Filter{Until: &after}, true},
		{"until a nanosecond before it", requestlogs.Filter{Until: &before}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, _, err := requestlogs.List(ctx, db, tenancy.OrganizationID{UUID: org}, c.f, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(recs) == 1; got != c.want {
				t.Fatalf("listed %v, want %v", got, c.want)
			}
		})
	}
}

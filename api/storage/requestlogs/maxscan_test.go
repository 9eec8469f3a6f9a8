package requestlogs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// walk follows a bounded list's pages from the start: next reads the page
// after a position (nil: the first). It checks each page's shape (at most
// limit records, in order after the cursor; a short page only with More and
// a Next; Next strictly before the cursor it was read from, so every page
// moves on) and returns the records' request ids, each page's record count
// and the positions the pages ended at.
func walk(t *testing.T, limit, maxPages int, next func(after *storage.Cursor) (requestlogs.Page, error)) (
	got []string, sizes []int, ends []storage.Cursor) {
	t.Helper()
	var after *storage.Cursor
	for page := 0; ; page++ {
		if page >= maxPages {
			t.Fatalf("more than %d pages", maxPages)
		}
		p, err := next(after)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) > limit {
			t.Fatalf("page %d: %d records, limit %d", page, len(p.Records), limit)
		}
		if p.More != (p.Next != nil) {
			t.Fatalf("page %d: More %v with Next %v", page, p.More, p.Next)
		}
		for i, r := range p.Records {
			prev := after
			if i > 0 {
				prev = &storage.Cursor{CreatedAt: p.Records[i-1].CreatedAt, ID: p.Records[i-1].ID}
			}
			if prev != nil && !before(storage.Cursor{CreatedAt: r.CreatedAt, ID: r.ID}, *prev) {
				t.Fatalf("page %d: record %d (%v %v) is not after %v", page, i, r.CreatedAt, r.ID, *prev)
			}
			got = append(got, r.RequestID)
		}
		sizes = append(sizes, len(p.Records))
		if !p.More {
			return got, sizes, ends
		}
		if n := len(p.Records); n > 0 {
			last := storage.Cursor{CreatedAt: p.Records[n-1].CreatedAt, ID: p.Records[n-1].ID}
			if before(last, *p.Next) {
				t.Fatalf("page %d: Next %v is after its last record %v", page, *p.Next, last)
			}
		}
		if after != nil && !before(*p.Next, *after) {
			t.Fatalf("page %d: Next %v does not move on from the cursor %v", page, *p.Next, *after)
		}
		ends = append(ends, *p.Next)
		after = p.Next
	}
}

// before reports whether a comes after b newest first: (created_at, id) less.
func before(a, b storage.Cursor) bool {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c < 0
	}
	return slices.Compare(a.ID[:], b.ID[:]) < 0
}

// TestAPageStopsAtMaxScan: an organization's log holds more records than
// MaxScan, all successful GETs of one route but the oldest, a POST of
// another. A filter that matches only that oldest record, and one that
// matches nothing, answer a first page that is empty, with More and a Next;
// following Next reaches the end (More false) in a few pages, each of which
// passed over at most MaxScan records, and lists the oldest record exactly
// once. Unfiltered, the first page is full as before.
func TestAPageStopsAtMaxScan(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	partitioned(t, db)
	org, other, key := uuid.New(), uuid.New(), uuid.New()
	// 2.5 times MaxScan records, 40 ms apart (about 100 minutes), in
	// segments of MaxSegment records: the oldest is the only POST.
	n := requestlogs.MaxScan * 5 / 2
	now := time.Now().UTC().Truncate(time.Millisecond)
	get, post := "/api/v2/events", "/api/v2/clients"
	recs := make([]requestlog.Record, 0, n+1)
	var at []time.Time
	for i := range n {
		created := now.Add(-time.Duration(n-i) * 40 * time.Millisecond)
		r := requestlog.Record{CreatedAt: created, OrganizationID: &org, KeyID: &key, Method: "GET", Path: get,
			Route: &get, Status: 200, APIVersion: "v2"}
		if i == 0 {
			r.Method, r.Path, r.Route, r.Status = "POST", post, &post, 201
		}
		r.Normalize()
		r.RequestID = r.ID.String()
		recs = append(recs, r)
		at = append(at, r.CreatedAt)
	}
	oldest := recs[0].RequestID
	// Another organization's POST of the same route, newer than all of them.
	x := requestlog.Record{CreatedAt: now, OrganizationID: &other, KeyID: &key, Method: "POST", Path: post,
		Route: &post, Status: 201, APIVersion: "v2"}
	x.Normalize()
	x.RequestID = x.ID.String()
	recs = append(recs, x)
	if err := requestlog.Copy(ctx, db, recs); err != nil {
		t.Fatal(err)
	}

	limit := 25
	for _, c := range []struct {
		name string
		f    requestlogs.Filter
		want []string
	}{
		{"route of the oldest", requestlogs.Filter{Route: post}, []string{oldest}},
		{"status of the oldest", requestlogs.Filter{Status: 201}, []string{oldest}},
		{"method matching nothing", requestlogs.Filter{Method: "DELETE"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, err := requestlogs.ListPage(ctx, db, tenancy.OrganizationID{UUID: org}, c.f, nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.Records) != 0 || !first.More || first.Next == nil {
				t.Fatalf("first page: %d records, More %v, Next %v; want none, More and a Next",
					len(first.Records), first.More, first.Next)
			}
			got, sizes, ends := walk(t, limit, 10, func(after *storage.Cursor) (requestlogs.Page, error) {
				return requestlogs.ListPage(ctx, db, tenancy.OrganizationID{UUID: org}, c.f, after, limit)
			})
			if !slices.Equal(got, c.want) {
				t.Fatalf("listed %v, want %v (page sizes %v)", got, c.want, sizes)
			}
			if len(sizes) < 3 {
				t.Fatalf("%d pages (%v) over %d records: a page read more than MaxScan", len(sizes), sizes, n)
			}
			// The records a page passed over are those between the cursor it
			// was read from and its Next.
			from := now.Add(time.Second)
			for i, e := range ends {
				passed := 0
				for _, a := range at {
					if !a.Before(e.CreatedAt) && a.Before(from) {
						passed++
					}
				}
				if passed > requestlogs.MaxScan {
					t.Errorf("page %d passed over %d records, more than MaxScan", i, passed)
				}
				from = e.CreatedAt
			}
		})
	}

	full, err := requestlogs.ListPage(ctx, db, tenancy.OrganizationID{UUID: org}, requestlogs.Filter{}, nil, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Records) != limit || !full.More ||
		*full.Next != (storage.Cursor{CreatedAt: full.Records[limit-1].CreatedAt, ID: full.Records[limit-1].ID}) {
		t.Fatalf("unfiltered first page: %d records, More %v, Next %v; want %d, ending at the last",
			len(full.Records), full.More, full.Next, limit)
	}
}

// TestBoundedPagesMatchTheRecords is TestListPagesMatchTheRecords through
// bounded pages: many overlapping segments of several keys, records sharing
// instants, read with a bound of one record (every page ends as soon as it
// has moved on) up to more than the whole log, for a set of filters and page
// sizes. Following Next must give exactly the matching records, newest
// first, each once, whatever the bound cut.
func TestBoundedPagesMatchTheRecords(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	partitioned(t, db)
	now := time.Now().UTC().Truncate(time.Second)
	orgA, orgB := uuid.New(), uuid.New()
	keys := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	routes := []string{"/api/v2/events", "/api/v2/clients/{id}", "/api/v1/jobs"}
	mine := writeOverlapping(t, db, rand.New(rand.NewPCG(3, 4)), now, orgA, orgB, keys, routes)
	since, until := now.Add(-8*time.Minute), now.Add(-3*time.Minute)
	filters := []struct {
		name  string
		f     requestlogs.Filter
		match func(requestlog.Record) bool
	}{
		{"all", requestlogs.Filter{}, func(requestlog.Record) bool { return true }},
		{"4xx", requestlogs.Filter{StatusClass: 4}, func(r requestlog.Record) bool { return r.Status/100 == 4 }},
		{"201", requestlogs.Filter{Status: 201}, func(r requestlog.Record) bool { return r.Status == 201 }},
		{"key", requestlogs.Filter{KeyID: &keys[1]}, func(r requestlog.Record) bool { return *r.KeyID == keys[1] }},
		{"route and method", requestlogs.Filter{Route: routes[1], Method: "POST"},
			func(r requestlog.Record) bool { return *r.Route == routes[1] && r.Method == "POST" }},
		{"since and until", requestlogs.Filter{Since: &since, Until: &until},
			func(r requestlog.Record) bool { return !r.CreatedAt.Before(since) && r.CreatedAt.Before(until) }},
		{"oldest record's request id", requestlogs.Filter{RequestID: mine[len(mine)-1].RequestID},
			func(r requestlog.Record) bool { return r.RequestID == mine[len(mine)-1].RequestID }},
		{"nothing", requestlogs.Filter{Method: "DELETE"}, func(requestlog.Record) bool { return false }},
	}
	for _, fc := range filters {
		var want []string
		for _, r := range mine {
			if fc.match(r) {
				want = append(want, r.RequestID)
			}
		}
		// A bound of one record ends a page at each step once it has moved
		// on; 60, after a segment or two; 1<<20 is past the whole log.
		for _, c := range []struct{ maxScan, limit int }{{1, 7}, {60, 1}, {60, 7}, {60, 100}, {400, 7},
			{1 << 20, 1}, {1 << 20, 100}} {
			t.Run(fmt.Sprintf("%s/max scan %d/limit %d", fc.name, c.maxScan, c.limit), func(t *testing.T) {
				got, sizes, _ := walk(t, c.limit, 2*len(mine)+2, func(after *storage.Cursor) (requestlogs.Page, error) {
					return requestlogs.ListScanning(ctx, db, tenancy.OrganizationID{UUID: orgA}, fc.f, after, c.limit, c.maxScan)
				})
				if !slices.Equal(got, want) {
					t.Fatalf("got %d records, want %d (pages %v)\n got  %v\n want %v", len(got), len(want),
						sizes, head(got), head(want))
				}
				if c.maxScan == 1<<20 && len(sizes) != max(1, (len(want)+c.limit-1)/c.limit) {
					t.Errorf("with a bound past the whole log, %d pages %v for %d records", len(sizes), sizes, len(want))
				}
			})
		}
	}
}

// writeOverlapping writes 60 flushes of records spread over the last ten
// minutes for orgA (and some for orgB): many segments overlapping in time,
// some spanning nearly MaxSpan and some cut by it, a few records sharing an
// instant. It returns orgA's records newest first.
func writeOverlapping(t *testing.T, db *bun.DB, rng *rand.Rand, now time.Time, orgA, orgB uuid.UUID, keys []uuid.UUID,
	routes []string) []requestlog.Record {
	t.Helper()
	prefix := "svc_live_abc"
	statuses := []int{200, 200, 200, 201, 404, 422, 429, 500}
	var mine []requestlog.Record
	for flush := range 60 {
		var batch []requestlog.Record
		base := now.Add(-time.Duration(rng.IntN(600)) * time.Second)
		for range 1 + rng.IntN(30) {
			org := &orgA
			if rng.IntN(4) == 0 {
				org = &orgB
			}
			at := base.Add(-time.Duration(rng.IntN(65)) * time.Second)
			if rng.IntN(10) > 0 {
				at = at.Add(time.Duration(rng.IntN(1_000_000)) * time.Microsecond)
			}
			k := keys[rng.IntN(len(keys))]
			route := routes[rng.IntN(len(routes))]
			version := "v2"
			if strings.HasPrefix(route, "/api/v1") {
				version = "v1"
			}
			r := requestlog.Record{CreatedAt: at, OrganizationID: org, KeyID: &k, KeyPrefix: &prefix,
				Method: []string{"GET", "POST"}[rng.IntN(2)], Path: route, Route: &route,
				Status: statuses[rng.IntN(len(statuses))], APIVersion: version}
			r.ID = requestlog.NewID(at)
			r.RequestID = r.ID.String()
			r.Normalize()
			batch = append(batch, r)
			if org == &orgA {
				mine = append(mine, r)
			}
		}
		if err := requestlog.Copy(context.Background(), db, batch); err != nil {
			t.Fatalf("flush %d: %v", flush, err)
		}
	}
	slices.SortFunc(mine, func(a, b requestlog.Record) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return slices.Compare(b.ID[:], a.ID[:])
	})
	return mine
}

// allQueries is a bun hook that keeps every statement's text.
type allQueries struct {
	mu sync.Mutex
	qs []string
}

func (a *allQueries) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	a.mu.Lock()
	a.qs = append(a.qs, e.Query)
	a.mu.Unlock()
	return ctx
}

func (a *allQueries) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestBoundedStepsUseTheIndexes: the statement that sizes a step of
// ListPage (the segments' last_at and record counts) reads the segments
// through the index each filter's records statement uses (TestFiltersUseIndexes):
// the partial error index for an error status, the organization's index
// with key_id checked on its rows for a key.
func TestBoundedStepsUseTheIndexes(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	partitioned(t, db)
	now := time.Now().UTC()
	org, key, other := uuid.New(), uuid.New(), uuid.New()
	var recs []requestlog.Record
	for i := range 3000 {
		k, status := other, 200
		if i%1000 == 0 {
			k, status = key, 429
		}
		r := requestlog.Record{CreatedAt: now.Add(-time.Duration(i) * time.Millisecond), Method: "GET",
			Path: "/api/v2/events", Status: status, APIVersion: "v2", OrganizationID: &org, KeyID: &k}
		r.Normalize()
		r.RequestID = r.ID.String()
		recs = append(recs, r)
	}
	if err := requestlog.Copy(ctx, db, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE request_log_segments"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		f      requestlogs.Filter
		inPlan []string
	}{
		{"status", requestlogs.Filter{Status: 429}, []string{"organization_id_last_at_idx1"}},
		{"key", requestlogs.Filter{KeyID: &key}, []string{"organization_id_last_at_idx ", "Filter: (key_id = "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			seen := &allQueries{}
			p, err := requestlogs.ListPage(ctx, db.WithQueryHook(seen), tenancy.OrganizationID{UUID: org}, c.f, nil, 10)
			if err != nil || len(p.Records) != 3 {
				t.Fatalf("%d records, %v; want 3", len(p.Records), err)
			}
			var step string
			for _, q := range seen.qs {
				if strings.Contains(q, "cardinality(s.ids)") {
					step = q
				}
			}
			if step == "" {
				t.Fatalf("no step statement among %q", seen.qs)
			}
			plan := explain(t, db, step)
			for _, part := range c.inPlan {
				if !strings.Contains(plan, part) {
					t.Errorf("plan lacks %q:\n%s", part, plan)
				}
			}
		})
	}
}

// Package requestlogs reads an organization's request log, the records
// that platform/requestlog's Writer keeps: List and ListPage (newest first,
// by cursor, filtered) and Get, behind GET /api/v2/request_logs and the
// CLI's requests list. As every store, it takes the organization as a
// tenancy.OrganizationID and reads only that organization's records.
package requestlogs

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// Filter narrows one organization's list. Zero fields do not filter.
type Filter struct {
	// Status is an exact status code; StatusClass (1 to 5) a class such as 4xx.
	Status      int
	StatusClass int
	Method      string
	Route       string
	KeyID       *uuid.UUID
	RequestID   string
	// Since is inclusive, Until exclusive.
	Since, Until *time.Time
}

// EmptyWindow reports whether Since is not before Until: no instant lies
// in such a window, which the API and the CLI refuse as a mistake rather
// than answering an empty list.
//
// Since and Until are whole microseconds, as created_at is: two instants
// sent within one microsecond make an empty window, said as
// EmptyWindowIssue.
func (f Filter) EmptyWindow() bool {
	return f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until)
}

// EmptyWindowIssue is the problem of an EmptyWindow.
const EmptyWindowIssue = "must be after since, to the microsecond (the precision of created_at)"

// Key is the filter in a canonical text, to bind a cursor to the filter it
// was issued for (a cursor of one filter is refused under another, as on
// every list).
func (f Filter) Key() string {
	at := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	key := ""
	if f.KeyID != nil {
		key = f.KeyID.String()
	}
	return fmt.Sprintf("status=%d,class=%d,method=%q,route=%q,key=%s,request=%q,since=%s,until=%s",
		f.Status, f.StatusClass, f.Method, f.Route, key, f.RequestID, at(f.Since), at(f.Until))
}

// recordColumns select a record from a segment s and its unnested arrays r
// (unnested): the same columns, in the same order, as the view request_logs
// (migration 20261128010000_request_log_segments) that support's ad-hoc SQL
// reads.
const recordColumns = `r.id, r.created_at, coalesce(r.request_id, r.id::text) AS request_id, r.method, r.path,
	r.route, r.status, r.duration_ms, r.error_code, s.key_id, s.key_prefix, r.idempotency_key,
	coalesce(r.replayed, false) AS idempotent_replayed, r.ip, r.user_agent, s.api_version`

const unnested = `request_log_segments AS s CROSS JOIN LATERAL unnest(s.ids, s.created_ats, s.request_ids,
	s.methods, s.paths, s.routes, s.statuses, s.durations_ms, s.error_codes, s.idempotency_keys, s.replayed,
	s.ips, s.user_agents) AS r(id, created_at, request_id, method, path, route, status, duration_ms,
	error_code, idempotency_key, replayed, ip, user_agent)`

// owned completes records read back for org: the organization is not
// selected (the query is scoped by it) and times are rendered in UTC.
func owned(recs []requestlog.Record, org tenancy.OrganizationID) {
	id := org.UUID
	for i := range recs {
		recs[i].OrganizationID = &id
		recs[i].CreatedAt = recs[i].CreatedAt.UTC()
	}
}

// firstStep is how many segments the first step of a list reads; each later
// step reads four times as many (ListPage: as many as fit in what is left of
// MaxScan).
const firstStep = 32

// MaxScan bounds the work of one page of ListPage: the records it unnests
// from the segments it reads, listed or not, plus segmentCost for each
// segment. A read that reaches it without filling its page ends there, with
// Page.More set and Page.Next at the place it stopped: a filter that
// matches little (a route, a method, a 2xx status) pages through the log a
// bounded step at a time instead of reading the whole retention window in
// one request (docs/observability.md, "Reading"). 50,000 is about 70 ms of
// PostgreSQL a page, for segments of 1,000 records as for segments of one.
const MaxScan = 50_000

// segmentCost is what reading one segment costs beside its records, in
// records: the row, its arrays' headers and the unnest's start, measured at
// 15 to 45 µs a segment against about 2 µs a record.
const segmentCost = 20

// Page is one page of ListPage.
type Page struct {
	// Records are the page's records, newest first: at most the limit, and
	// fewer, none perhaps, when the read stopped at MaxScan.
	Records []requestlog.Record
	// More reports that records may follow: the page is full and more
	// match, or the read stopped at MaxScan before the log's end.
	More bool
	// Next is where the next page starts after when More: the page's last
	// record, or, when the read stopped at MaxScan, the instant it had read
	// down to (with the nil id, before every record of that instant), every
	// record at or after which it has examined. Nil when !More.
	Next *storage.Cursor
}

// List returns up to limit of org's records matching f, newest first
// (created_at, then id, descending), starting after the position after
// (nil: from the newest), and whether more follow. It reads as many of the
// organization's segments as the page needs, all of them for a filter that
// matches little: the CLI's one page. The API reads ListPage, whose work is
// bounded.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, f Filter, after *storage.Cursor, limit int) ([]requestlog.Record, bool, error) {
	p, err := list(ctx, db, org, f, after, limit, 0)
	return p.Records, p.More, err
}

// ListPage is List with the work of one page bounded by MaxScan: a read
// that passes MaxScan without filling its page answers the records found so
// far, with More and a Next that resumes exactly where it stopped, so that a
// reader following Next sees every matching record once, in order.
func ListPage(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, f Filter, after *storage.Cursor, limit int) (Page, error) {
	return list(ctx, db, org, f, after, limit, MaxScan)
}

// list is List (maxScan 0) and ListPage (maxScan MaxScan).
//
// It reads the organization's segments newest first (by last_at), a step of
// them at a time: a step's boundary b is the last_at of the step's oldest
// segment, and every segment not read yet ends before b, so its records are
// older than b. Once limit+1 records at or after b are in hand, no unread
// record can come before them and the page is complete; a busy
// organization's first page takes one step. Segment columns narrow each step
// before its arrays are unnested: the key, the error count (the partial
// index) for a filter on errors, and the time bounds that the filter, the
// cursor and a UUIDv7 request id imply through MaxSpan (requestlog.MaxSpan).
//
// With maxScan, the steps are sized to what is left of it (counting each
// segment's records and segmentCost), and once it is spent the read ends at
// the last boundary b: every record at or after b has been examined, so the
// page is the matching ones among them, and the next page starts before
// (b, nil id). The read ends there only when that place is before the
// cursor, so each page moves on: the segments straddling the cursor's
// instant, which the previous page read too, are read again first.
func list(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, f Filter, after *storage.Cursor, limit, maxScan int) (Page, error) {
	f = f.stored()
	w := window(f, after)
	var out []requestlog.Record
	step, spent := firstStep, 0
	for {
		var b time.Time
		var bounded, full bool
		if maxScan == 0 {
			var err error
			if b, bounded, err = boundary(ctx, db, org, f, w, step); err != nil {
				return Page{}, err
			}
		} else {
			// Until the read has passed its cursor's instant it cannot end,
			// and each step may spend MaxScan again (the segments
			// straddling that instant hold at most a minute or two of the
			// organization's records, MaxSpan).
			left, force := maxScan-spent, !movesOn(w.below, after)
			if force {
				left = max(left, maxScan)
			}
			s, err := budgetedStep(ctx, db, org, f, w, step, left, force)
			if err != nil {
				return Page{}, err
			}
			if s.segments == 0 && s.more {
				return stopped(out, *w.below, limit, org), nil
			}
			if s.segments == 0 {
				break // none left: out is the page
			}
			b, bounded, full = s.at, s.more, s.full
			spent += s.cost
		}
		var rows []requestlog.Record
		q := records(db, org, f, w, after).OrderExpr("r.created_at DESC, r.id DESC").Limit(int64(limit + 1))
		if bounded {
			q = q.Where("s.last_at >= ?", b)
		}
		if err := q.Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Page{}, database.Error(err)
		}
		out = merge(out, rows, limit+1)
		if !bounded || (len(out) > limit && !out[limit].CreatedAt.Before(b)) {
			break
		}
		w.below = &b
		if maxScan > 0 && (full || spent >= maxScan) && movesOn(w.below, after) {
			return stopped(out, b, limit, org), nil
		}
		step *= 4
		if maxScan > 0 {
			step = min(step, max(maxScan/segmentCost, 1))
		}
	}
	p := Page{Records: out}
	if len(out) > limit {
		p.Records, p.More = out[:limit], true
		last := p.Records[limit-1]
		p.Next = &storage.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	owned(p.Records, org)
	return p, nil
}

// movesOn reports whether a read that stops at the boundary b (before (b,
// nil id)) ends before the cursor after, so that the next page starts
// further on. False without a boundary yet.
func movesOn(b *time.Time, after *storage.Cursor) bool {
	switch {
	case b == nil:
		return false
	case after == nil:
		return true
	default:
		return b.Before(after.CreatedAt) || (b.Equal(after.CreatedAt) && after.ID != uuid.Nil)
	}
}

// stopped is the page of a read that ended at MaxScan with every record at
// or after b examined: out's records at or after b (out holds the newest
// matching ones read, and every one at or after b is among them), and the
// next page from b.
func stopped(out []requestlog.Record, b time.Time, limit int, org tenancy.OrganizationID) Page {
	n := 0
	for n < len(out) && n < limit && !out[n].CreatedAt.Before(b) {
		n++
	}
	p := Page{Records: out[:n], More: true, Next: &storage.Cursor{CreatedAt: b}}
	owned(p.Records, org)
	return p
}

// segmentWindow bounds the segments that can hold a page's records, by
// their last_at and first_at.
type segmentWindow struct {
	// lastAtLeast, lastBefore bound last_at (nil: unbounded); below is the
	// previous step's boundary, exclusive.
	lastAtLeast, lastBefore, below *time.Time
	// firstBefore bounds first_at, exclusive.
	firstBefore *time.Time
}

// window derives the segment bounds of a filter and cursor: a segment holds
// records from first_at to last_at, at most MaxSpan apart
// (requestlog.MaxSpan), so a record at t is in a segment with t <= last_at
// <= t + MaxSpan.
func window(f Filter, after *storage.Cursor) segmentWindow {
	var w segmentWindow
	earlier := func(p **time.Time, t time.Time) {
		if *p == nil || t.Before(**p) {
			*p = &t
		}
	}
	later := func(p **time.Time, t time.Time) {
		if *p == nil || t.After(**p) {
			*p = &t
		}
	}
	if f.Since != nil {
		later(&w.lastAtLeast, *f.Since)
	}
	if f.Until != nil {
		earlier(&w.firstBefore, *f.Until)
		earlier(&w.lastBefore, f.Until.Add(requestlog.MaxSpan))
	}
	if after != nil {
		// Records before (created_at, id) of the cursor: at or before its instant.
		earlier(&w.firstBefore, after.CreatedAt.Add(time.Microsecond))
		earlier(&w.lastBefore, after.CreatedAt.Add(requestlog.MaxSpan+time.Microsecond))
	}
	if t, ok := requestIDTime(f.RequestID); ok {
		later(&w.lastAtLeast, t)
		earlier(&w.firstBefore, t.Add(time.Millisecond))
		earlier(&w.lastBefore, t.Add(time.Millisecond+requestlog.MaxSpan))
	}
	return w
}

// requestIDTime is the millisecond a UUIDv7 request id was assigned in.
func requestIDTime(requestID string) (time.Time, bool) {
	if requestID == "" {
		return time.Time{}, false
	}
	id, err := uuid.Parse(requestID)
	if err != nil {
		return time.Time{}, false
	}
	return requestlog.IDTime(id)
}

// segmentsOf narrows q, over request_log_segments AS s, to org's segments
// that may hold a record matching f within w.
func segmentsOf(q *bun.SelectQuery, org tenancy.OrganizationID, f Filter, w segmentWindow) *bun.SelectQuery {
	q = q.Where("s.organization_id = ?", org)
	if f.KeyID != nil {
		q = q.Where("s.key_id = ?", *f.KeyID)
	}
	if f.Status >= 400 || f.StatusClass >= 4 {
		q = q.Where("s.error_count > 0") // a literal, so the partial index applies
	}
	for _, b := range []struct {
		cond string
		at   *time.Time
	}{{"s.last_at >= ?", w.lastAtLeast}, {"s.last_at < ?", w.lastBefore}, {"s.last_at < ?", w.below},
		{"s.first_at < ?", w.firstBefore}} {
		if b.at != nil {
			q = q.Where(b.cond, *b.at)
		}
	}
	return q
}

// boundary returns the last_at of the step-th newest segment within w, and
// false when fewer remain (the step reads them all).
func boundary(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, f Filter, w segmentWindow, step int) (time.Time, bool, error) {
	var at []time.Time
	q := segmentsOf(db.NewSelect().TableExpr("request_log_segments AS s").ColumnExpr("s.last_at"), org, f, w)
	if err := q.OrderExpr("s.last_at DESC").Offset(int64(step-1)).Limit(1).Scan(ctx, &at); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, database.Error(err)
	}
	if len(at) == 0 {
		return time.Time{}, false, nil
	}
	return at[0], true, nil
}

// stepSize is one step of ListPage, sized by budgetedStep.
type stepSize struct {
	// at is the last_at of the step's oldest segment, its boundary.
	at time.Time
	// more reports that segments older than at remain (the step is
	// bounded by at); false when the step reads every remaining one.
	more bool
	// segments is how many segments the step reads (0: none fits in what
	// is left of MaxScan, or none remains), and cost what reading them
	// costs: their records plus segmentCost each.
	segments, cost int
	// full reports that the next segment does not fit in what is left.
	full bool
}

// budgetedStep sizes the next step of ListPage: the up to step newest
// segments within w that fit in left, at least one when force (the read
// cannot end before it has passed its cursor's instant). Segments of the
// same last_at as the step's oldest are read with it (the records statement
// reads last_at >= the boundary) and counted. It reads each segment's
// record count (the length of its ids), not its records.
func budgetedStep(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, f Filter, w segmentWindow, step, left int,
	force bool) (stepSize, error) {
	var segs []struct {
		LastAt  time.Time `bun:"last_at"`
		Records int       `bun:"records"`
	}
	// A segment holds at least one record: no more than n fit.
	n := min(step, max(left/(1+segmentCost), 1))
	q := segmentsOf(db.NewSelect().TableExpr("request_log_segments AS s").
		ColumnExpr("s.last_at, cardinality(s.ids) AS records"), org, f, w)
	if err := q.OrderExpr("s.last_at DESC").Limit(int64(n+1)).Scan(ctx, &segs); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return stepSize{}, database.Error(err)
	}
	var st stepSize
	for st.segments < min(n, len(segs)) {
		c := segs[st.segments].Records + segmentCost
		if st.cost+c > left && !(force && st.segments == 0) {
			st.full = true
			break
		}
		st.cost += c
		st.segments++
	}
	if st.segments == 0 {
		st.more = len(segs) > 0
		return st, nil
	}
	st.at = segs[st.segments-1].LastAt
	for st.segments < len(segs) && segs[st.segments].LastAt.Equal(st.at) {
		st.cost += segs[st.segments].Records + segmentCost
		st.segments++
	}
	// Only a step that took every segment and found fewer than it asked
	// for read the last ones; past the statement's limit, more may share
	// the boundary's last_at, and the records statement reads them too.
	st.more = st.segments < len(segs) || len(segs) > n
	st.full = st.full || (st.more && st.segments >= n && n < step)
	return st, nil
}

// records selects org's records matching f after the cursor, from the
// segments within w.
func records(db bun.IDB, org tenancy.OrganizationID, f Filter, w segmentWindow, after *storage.Cursor) *bun.SelectQuery {
	q := segmentsOf(db.NewSelect().TableExpr(unnested).ColumnExpr(recordColumns), org, f, w)
	if f.Status != 0 {
		q = q.Where("r.status = ?", f.Status)
	}
	if f.StatusClass != 0 {
		q = q.Where("r.status >= ? AND r.status < ?", f.StatusClass*100, f.StatusClass*100+100)
	}
	if f.Method != "" {
		q = q.Where("r.method = ?", f.Method)
	}
	if f.Route != "" {
		q = q.Where("r.route = ?", f.Route)
	}
	if f.RequestID != "" {
		q = q.Where("coalesce(r.request_id, r.id::text) = ?", f.RequestID)
	}
	if f.Since != nil {
		q = q.Where("r.created_at >= ?", *f.Since)
	}
	if f.Until != nil {
		q = q.Where("r.created_at < ?", *f.Until)
	}
	if after != nil {
		q = q.Where("(r.created_at, r.id) < (?, ?)", after.CreatedAt, after.ID)
	}
	return q
}

// merge merges two newest-first lists of records and keeps the first n.
func merge(a, b []requestlog.Record, n int) []requestlog.Record {
	if len(a) == 0 {
		return b[:min(len(b), n)]
	}
	out := make([]requestlog.Record, 0, min(len(a)+len(b), n))
	for len(out) < n && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || (len(a) > 0 && newer(&a[0], &b[0])) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// newer reports whether a comes before b newest first.
func newer(a, b *requestlog.Record) bool {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c > 0
	}
	return bytes.Compare(a.ID[:], b.ID[:]) > 0
}

// Get returns org's record with the given id, or nil when there is none (an
// id that is not a UUIDv7 names no record: every record id is one).
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*requestlog.Record, error) {
	if _, ok := requestlog.IDTime(id); !ok {
		return nil, nil
	}
	// An id bounds the segments as a request id does: it is the record's
	// request id when the app assigned it.
	w := window(Filter{RequestID: id.String()}, nil)
	var r []requestlog.Record
	err := segmentsOf(db.NewSelect().TableExpr(unnested).ColumnExpr(recordColumns), org, Filter{}, w).
		Where("r.id = ?", id).Limit(1).Scan(ctx, &r)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, database.Error(err)
	}
	if len(r) == 0 {
		return nil, nil
	}
	owned(r, org)
	return &r[0], nil
}

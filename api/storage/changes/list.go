package changes

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Filter narrows the feed: to the object types a key may read, and to the
// change types asked for (none: all).
type Filter struct {
	ObjectTypes []string
	Types       []string
}

// MaxPageBytes bounds the data of one page of the feed, as the answer
// writes it (renderedSize): a page ends
// before the change that would take it past the bound, and holds at least
// one change. A change carries its record's whole state (a quote of 500
// long lines is about 0.5 MB), so limit alone did not bound a page: 100 of
// them made a 58 MB answer and hundreds of MB of memory for one request
// (docs/changes.md, "Pages").
const MaxPageBytes = 2 << 20

// renderedSize is the SQL measure of a change's data as a page answers it
// (passed is the change's row): its stored jsonb's text in bytes, plus
// five for each <, > and & and three for each U+2028 and U+2029, which the
// response's JSON encoder writes as six-byte \u escapes. Measured by the
// stored bytes alone, a page of records full of such characters answered
// five times MaxPageBytes (docs/changes.md, "Pages").
//
// The trigger that writes a change measures it once
// (change_rendered_size, the same rule) and stores the size in the row, so
// a page sums stored integers and reads the data of the changes it returns
// alone: measured here, every one of the limit+1 changes a page reads was
// cast to text and scanned, and a page of one 3 MB change at limit=100 did
// a hundred times the work of the page it answered. A change written
// before the column existed has no size and is measured here, by the same
// function; COALESCE evaluates it for those alone.
const renderedSize = `coalesce(passed.rendered_size, change_rendered_size(passed.data))`

// MaxScan bounds the changes one read passes over, those it lists and those
// it leaves out (object types the key may not read, change types the type
// filter leaves out) together. A read that reaches it without filling its
// page ends there, with HasMore set and Resume after the last change it
// passed: a key that may read clients alone, in an organization whose feed
// is mostly reservations, pages through them a bounded step at a time
// instead of reading them all on every poll (docs/changes.md, "Pages").
const MaxScan = 10000

// Feed is one page of the feed and where the next read starts.
type Feed struct {
	storage.Page[Change]
	// Resume is the place the next read starts after: the page's last
	// change, or, when the page is not full, the last change the read
	// passed over, listed or not, so that the next read does not pass over
	// the same ones again. Nil when the read passed over none.
	Resume *storage.Cursor
}

// List returns up to p.Limit changes of org after p.After, oldest first,
// and fewer when their data passes MaxPageBytes or the read passes over
// MaxScan changes (HasMore then says more follow). Only changes below the
// visibility horizon are read: those of transactions that all ended before
// this read (docs/changes.md), so a later read never finds one before the
// cursor, nor one before Resume.
//
// A read without a cursor starts after org's retention mark, the last
// change the purge deleted; a cursor before the mark is refused with
// cursor_expired (ErrCursorExpired), since a change after it is gone
// (docs/changes.md, "An expired cursor"). The mark is read again in the
// statement that reads the page (or, for a page that is not full, in the
// later one that finds the last change passed over), so a purge that
// commits during the read is seen: the cursor is then refused, and a read
// without one starts again after the new mark.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f Filter) (Feed, error) {
	if len(f.ObjectTypes) == 0 {
		return Feed{Page: storage.Page[Change]{Items: []Change{}}}, nil
	}
	for attempt := 1; ; attempt++ {
		feed, moved, err := list(ctx, db, org, p, f)
		switch {
		case err != nil:
			return Feed{}, err
		case !moved:
			return feed, nil
		case p.After != nil:
			return Feed{}, ErrCursorExpired()
		case attempt == maxPurgeRaces:
			return Feed{}, errs.New(errs.ServiceUnavailable, "the change feed is being purged; retry")
		}
	}
}

// maxPurgeRaces bounds the reads without a cursor that List starts again
// because a purge moved the mark meanwhile.
const maxPurgeRaces = 3

// ErrCursorExpired is the refusal of a cursor that the retention has
// overtaken: 410 cursor_expired.
func ErrCursorExpired() *errs.Error {
	return errs.New(errs.CursorExpired, "the cursor is older than the feed's retention: changes after it were deleted (changes are kept "+
		strconv.Itoa(int(Retention/(24*time.Hour)))+" days). "+
		"Resync: take the next_cursor of GET /changes?from=now, read the records again from their list endpoints, "+
		"then go on from that cursor")
}

// key is a place in the feed, (position, seq).
type key struct{ position, seq int64 }

// start is what a read learns first: the horizon, and org's retention
// mark when the purge has deleted any of its changes.
type start struct {
	Horizon      int64         `bun:"horizon"`
	MarkPosition sql.NullInt64 `bun:"mark_position"`
	MarkSeq      sql.NullInt64 `bun:"mark_seq"`
}

// list is one attempt of List. moved reports that a change after the
// place the read started from has been purged: the cursor's, or, without
// one, the mark the read started after.
func list(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f Filter) (Feed, bool, error) {
	// The horizon is read once, so that the page and, when it is not full,
	// the last change passed over are found among the same changes: every
	// change below it is final.
	var st start
	if err := db.NewSelect().TableExpr("(SELECT 1) AS one").
		ColumnExpr("feed_horizon()::text::bigint AS horizon, m.position::text::bigint AS mark_position, m.seq AS mark_seq").
		Join("LEFT JOIN change_retention_marks AS m ON m.organization_id = ?", org).
		Scan(ctx, &st); err != nil {
		return Feed{}, false, database.Error(err)
	}
	var from *key
	if st.MarkPosition.Valid {
		from = &key{st.MarkPosition.Int64, st.MarkSeq.Int64}
	}
	if p.After != nil {
		pos, seq := fromCursor(*p.After)
		if from != nil && (pos < from.position || pos == from.position && seq < from.seq) {
			return Feed{}, true, nil
		}
		from = &key{pos, seq}
	}
	q := db.NewSelect().TableExpr("(?) AS passed", passed(db, org, from, st.Horizon, "id, type, object_type, object_id, data, created_at, position, seq, rendered_size")).
		ColumnExpr("id, type, object_type, object_id, data, created_at, position::text::bigint AS position, seq").
		ColumnExpr(renderedSize+" AS size").
		Where("object_type = ANY(?)", pgdialect.Array(f.ObjectTypes))
	if len(f.Types) > 0 {
		q = q.Where("type = ANY(?)", pgdialect.Array(f.Types))
	}
	// Ordered by the stored xid8 (passed.position), in which the index
	// returns the changes: ordered by the output's bigint of the same
	// name, PostgreSQL sorted every change after the cursor for each page.
	q = q.OrderExpr("passed.position ASC, passed.seq ASC").Limit(int64(p.Limit + 1))
	// PostgreSQL reads the limit's rows, each with its size (stored, or
	// measured once), and returns those within the bound with how many
	// there were: upto is the running size, and upto = size only on the
	// first row. The data of a row past the bound is never read: its
	// TOAST is fetched only for the rows the statement returns.
	sized := db.NewSelect().TableExpr("page").ColumnExpr("*").
		ColumnExpr("sum(size) OVER (ORDER BY position, seq) AS upto").
		ColumnExpr("count(*) OVER () AS fetched")
	outer := db.NewSelect().With("page", q).With("sized", sized).TableExpr("sized").ColumnExpr("*").
		ColumnExpr("EXISTS (?) AS moved", markedAfter(db, org, from)).
		Where("upto <= ? OR upto = size", MaxPageBytes).OrderExpr("position ASC, seq ASC")
	var items []Change
	if err := outer.Scan(ctx, &items); err != nil {
		return Feed{}, false, database.Error(err)
	}
	feed := Feed{Page: storage.Page[Change]{Items: items}}
	switch {
	case len(items) > p.Limit:
		feed.Items, feed.HasMore = items[:p.Limit], true
	case len(items) > 0 && items[0].Fetched > len(items):
		feed.HasMore = true // cut by MaxPageBytes
	default:
		// Not full: every change the read passed over is listed or not
		// the key's to see, so the next read starts after the last one.
		return lastPassed(ctx, db, org, from, st.Horizon, feed)
	}
	last := feed.Items[len(feed.Items)-1].PageKey()
	feed.Resume = &last
	return feed, items[0].Moved, nil
}

// passed selects cols of the changes a read passes over: org's changes
// after from (all of them when nil) below horizon, at most MaxScan of
// them, in feed order.
func passed(db bun.IDB, org tenancy.OrganizationID, from *key, horizon int64, cols string) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("changes").ColumnExpr(cols).
		Where("organization_id = ?", org).
		Where("position < ?::text::xid8", horizon)
	if from != nil {
		q = q.Where("(position, seq) > (?::text::xid8, ?)", from.position, from.seq)
	}
	return q.OrderExpr("position ASC, seq ASC").Limit(MaxScan)
}

// markedAfter selects org's retention mark when it is after from (when
// there is one, if from is nil): EXISTS of it says the purge deleted a
// change after from.
func markedAfter(db bun.IDB, org tenancy.OrganizationID, from *key) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("change_retention_marks AS m").ColumnExpr("1").
		Where("m.organization_id = ?", org)
	if from != nil {
		q = q.Where("(m.position, m.seq) > (?::text::xid8, ?)", from.position, from.seq)
	}
	return q
}

// lastPassed completes a page that is not full: Resume is the last change
// the read passed over, and HasMore is set when it passed over MaxScan.
// moved is markedAfter, read in the same statement.
func lastPassed(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, from *key, horizon int64, feed Feed) (Feed, bool, error) {
	var last struct {
		Position sql.NullInt64 `bun:"position"`
		Seq      int64         `bun:"seq"`
		Passed   int           `bun:"passed"`
		Moved    bool          `bun:"moved"`
	}
	lastOne := db.NewSelect().TableExpr("(?) AS passed", passed(db, org, from, horizon, "position, seq")).
		ColumnExpr("position::text::bigint AS position, seq, count(*) OVER () AS passed").
		OrderExpr("passed.position DESC, passed.seq DESC").Limit(1)
	err := db.NewSelect().TableExpr("(SELECT 1) AS one").
		Join("LEFT JOIN LATERAL (?) AS l ON true", lastOne).
		ColumnExpr("l.position, coalesce(l.seq, 0) AS seq, coalesce(l.passed, 0) AS passed").
		ColumnExpr("EXISTS (?) AS moved", markedAfter(db, org, from)).
		Scan(ctx, &last)
	if err != nil {
		return Feed{}, false, database.Error(err)
	}
	if feed.Items == nil {
		feed.Items = []Change{}
	}
	if !last.Position.Valid {
		return feed, last.Moved, nil
	}
	resume := keyCursor(last.Position.Int64, last.Seq)
	feed.Resume, feed.HasMore = &resume, last.Passed >= MaxScan
	return feed, last.Moved, nil
}

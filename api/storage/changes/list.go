package changes

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Retention is how long the feed keeps a change.
const Retention = 30 * 24 * time.Hour

// retentionSQL is Retention as a PostgreSQL interval.
const retentionSQL = "30 days"

// Filter narrows the feed: to the object types a key may read, and to the
// change types asked for (none: all).
type Filter struct {
	ObjectTypes []string
	Types       []string
}

// MaxPageBytes bounds the stored data of one page of the feed: a page ends
// before the change that would take it past the bound, and holds at least
// one change. A change carries its record's whole state (a quote of 500
// long lines is about 0.5 MB), so limit alone did not bound a page: 100 of
// them made a 58 MB answer and hundreds of MB of memory for one request
// (docs/changes.md, "Pages").
const MaxPageBytes = 2 << 20

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
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f Filter) (Feed, error) {
	if len(f.ObjectTypes) == 0 {
		return Feed{Page: storage.Page[Change]{Items: []Change{}}}, nil
	}
	// The horizon is read once, so that the page and, when it is not full,
	// the last change passed over are found among the same changes: every
	// change below it is final.
	var horizon int64
	if err := db.NewRaw("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").Scan(ctx, &horizon); err != nil {
		return Feed{}, database.Error(err)
	}
	q := db.NewSelect().TableExpr("(?) AS passed", passed(db, org, p, horizon, "id, type, object_type, object_id, data, created_at, position, seq")).
		ColumnExpr("id, type, object_type, object_id, data, created_at, position::text::bigint AS position, seq").
		ColumnExpr("octet_length(data::text) AS size").
		Where("object_type = ANY(?)", pgdialect.Array(f.ObjectTypes)).
		Where("created_at > clock_timestamp() - ?::interval", retentionSQL)
	if len(f.Types) > 0 {
		q = q.Where("type = ANY(?)", pgdialect.Array(f.Types))
	}
	// Ordered by the stored xid8 (passed.position), in which the index
	// returns the changes: ordered by the output's bigint of the same
	// name, PostgreSQL sorted every change after the cursor for each page.
	q = q.OrderExpr("passed.position ASC, passed.seq ASC").Limit(int64(p.Limit + 1))
	// PostgreSQL reads the limit's rows, each row's data measured once, and
	// returns those within the bound with how many there were: upto is the
	// running size, and upto = size only on the first row.
	sized := db.NewSelect().TableExpr("page").ColumnExpr("*").
		ColumnExpr("sum(size) OVER (ORDER BY position, seq) AS upto").
		ColumnExpr("count(*) OVER () AS fetched")
	outer := db.NewSelect().With("page", q).With("sized", sized).TableExpr("sized").ColumnExpr("*").
		Where("upto <= ? OR upto = size", MaxPageBytes).OrderExpr("position ASC, seq ASC")
	var items []Change
	if err := outer.Scan(ctx, &items); err != nil {
		return Feed{}, database.Error(err)
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
		return lastPassed(ctx, db, org, p, horizon, feed)
	}
	last := feed.Items[len(feed.Items)-1].PageKey()
	feed.Resume = &last
	return feed, nil
}

// passed selects cols of the changes a read passes over: org's changes
// after p.After below horizon, at most MaxScan of them, in feed order.
func passed(db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, horizon int64, cols string) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("changes").ColumnExpr(cols).
		Where("organization_id = ?", org).
		Where("position < ?::text::xid8", horizon)
	if p.After != nil {
		pos, seq := fromCursor(*p.After)
		q = q.Where("(position, seq) > (?::text::xid8, ?)", pos, seq)
	}
	return q.OrderExpr("position ASC, seq ASC").Limit(MaxScan)
}

// lastPassed completes a page that is not full: Resume is the last change
// the read passed over, and HasMore is set when it passed over MaxScan.
func lastPassed(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, horizon int64, feed Feed) (Feed, error) {
	var last []struct {
		Position int64 `bun:"position"`
		Seq      int64 `bun:"seq"`
		Passed   int   `bun:"passed"`
	}
	err := db.NewSelect().TableExpr("(?) AS passed", passed(db, org, p, horizon, "position, seq")).
		ColumnExpr("position::text::bigint AS position, seq, count(*) OVER () AS passed").
		OrderExpr("passed.position DESC, passed.seq DESC").Limit(1).Scan(ctx, &last)
	if err != nil {
		return Feed{}, database.Error(err)
	}
	if feed.Items == nil {
		feed.Items = []Change{}
	}
	if len(last) == 0 {
		return feed, nil
	}
	resume := keyCursor(last[0].Position, last[0].Seq)
	feed.Resume, feed.HasMore = &resume, last[0].Passed >= MaxScan
	return feed, nil
}

// PurgeBatch is the most changes one statement of Purge deletes.
const PurgeBatch = 5000

// Purge deletes the changes older than Retention, in every organization,
// and returns how many it deleted. It deletes PurgeBatch at a time, each
// batch a statement of its own (its own transaction on a pool), until one
// finds fewer: however large the backlog, each statement stays far within
// the statement timeout, and none holds a transaction id for long, which
// would hold back the feed's visibility horizon for every reader and the
// webhook fan-out (docs/changes.md). Pods that purge at once take different
// changes (SKIP LOCKED).
func Purge(ctx context.Context, db bun.IDB) (int64, error) { return purge(ctx, db, PurgeBatch) }

func purge(ctx context.Context, db bun.IDB, batch int) (int64, error) {
	return database.DeleteInBatches(ctx, db, batch, `/* every organization: the feed's retention */
		DELETE FROM changes WHERE seq IN (
			SELECT seq FROM changes WHERE created_at < clock_timestamp() - ?::interval
			LIMIT ? FOR UPDATE SKIP LOCKED)`, retentionSQL)
}

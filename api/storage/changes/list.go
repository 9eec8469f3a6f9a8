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

// List returns up to p.Limit changes of org after p.After, oldest first,
// and fewer when their data passes MaxPageBytes (HasMore then says more
// follow). Only changes below the visibility horizon are listed: those of
// transactions that all ended before this read (docs/changes.md), so a later
// read never finds one before the cursor.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f Filter) (storage.Page[Change], error) {
	if len(f.ObjectTypes) == 0 {
		return storage.Page[Change]{Items: []Change{}}, nil
	}
	var items []Change
	q := db.NewSelect().TableExpr("changes").
		ColumnExpr("id, type, object_type, object_id, data, created_at, position::text::bigint AS position, seq").
		ColumnExpr("octet_length(data::text) AS size").
		Where("organization_id = ?", org).
		Where("object_type = ANY(?)", pgdialect.Array(f.ObjectTypes)).
		Where("position < pg_snapshot_xmin(pg_current_snapshot())").
		Where("created_at > clock_timestamp() - ?::interval", retentionSQL)
	if len(f.Types) > 0 {
		q = q.Where("type = ANY(?)", pgdialect.Array(f.Types))
	}
	if p.After != nil {
		pos, seq := fromCursor(*p.After)
		q = q.Where("(position, seq) > (?::text::xid8, ?)", pos, seq)
	}
	q = q.OrderExpr("position ASC, seq ASC").Limit(int64(p.Limit + 1))
	// PostgreSQL reads the limit's rows, each row's data measured once, and
	// returns those within the bound with how many there were: upto is the
	// running size, and upto = size only on the first row.
	sized := db.NewSelect().TableExpr("page").ColumnExpr("*").
		ColumnExpr("sum(size) OVER (ORDER BY position, seq) AS upto").
		ColumnExpr("count(*) OVER () AS fetched")
	outer := db.NewSelect().With("page", q).With("sized", sized).TableExpr("sized").ColumnExpr("*").
		Where("upto <= ? OR upto = size", MaxPageBytes).OrderExpr("position ASC, seq ASC")
	if err := outer.Scan(ctx, &items); err != nil {
		return storage.Page[Change]{}, database.Error(err)
	}
	page := storage.Page[Change]{Items: items}
	switch {
	case len(items) > p.Limit:
		page.Items, page.HasMore = items[:p.Limit], true
	case len(items) > 0 && items[0].Fetched > len(items):
		page.HasMore = true // cut by MaxPageBytes
	}
	if page.Items == nil {
		page.Items = []Change{}
	}
	return page, nil
}

// Purge deletes the changes older than Retention, in every organization,
// and returns how many it deleted.
func Purge(ctx context.Context, db bun.IDB) (int64, error) {
	res, err := db.NewRaw(`/* every organization: the feed's retention */
		DELETE FROM changes WHERE created_at < clock_timestamp() - ?::interval`, retentionSQL).Exec(ctx)
	if err != nil {
		return 0, database.Error(err)
	}
	return res.RowsAffected()
}

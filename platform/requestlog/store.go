package requestlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
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

// Position is a place in the newest-first order.
type Position struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

const selectColumns = `id, created_at, request_id, method, path, route, status, duration_ms, error_code,
	key_id, key_prefix, idempotency_key, idempotent_replayed, ip, user_agent, api_version`

// owned completes records read back for org: the organization is not
// selected (the query is scoped by it) and times are rendered in UTC.
func owned(recs []Record, org uuid.UUID) {
	for i := range recs {
		recs[i].OrganizationID = &org
		recs[i].CreatedAt = recs[i].CreatedAt.UTC()
	}
}

// List returns up to limit records of org matching f, newest first, after
// the position (exclusive) when one is given, and whether more follow.
func List(ctx context.Context, db bun.IDB, org uuid.UUID, f Filter, after *Position, limit int) ([]Record, bool, error) {
	q := db.NewSelect().TableExpr("request_logs").ColumnExpr(selectColumns).Where("organization_id = ?", org)
	if f.Status != 0 {
		q = q.Where("status = ?", f.Status)
	}
	if f.StatusClass != 0 {
		q = q.Where("status >= ? AND status < ?", f.StatusClass*100, f.StatusClass*100+100)
	}
	if f.Method != "" {
		q = q.Where("method = ?", f.Method)
	}
	if f.Route != "" {
		q = q.Where("route = ?", f.Route)
	}
	if f.KeyID != nil {
		q = q.Where("key_id = ?", *f.KeyID)
	}
	if f.RequestID != "" {
		q = q.Where("request_id = ?", f.RequestID)
		// A request id is a UUIDv7 carrying the millisecond of its record's
		// created_at (api/rest.EnsureRequestID), so the time index finds it
		// in that millisecond; an id of any other shape (records logged
		// before request ids were UUIDv7) is matched across the range.
		if id, err := uuid.Parse(f.RequestID); err == nil {
			if t, ok := IDTime(id); ok {
				q = q.Where("created_at >= ? AND created_at < ?", t, t.Add(time.Millisecond))
			}
		}
	}
	if f.Since != nil {
		q = q.Where("created_at >= ?", *f.Since)
	}
	if f.Until != nil {
		q = q.Where("created_at < ?", *f.Until)
	}
	if after != nil {
		q = q.Where("(created_at, id) < (?, ?)", after.CreatedAt, after.ID)
	}
	var rows []Record
	err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(limit+1)).Scan(ctx, &rows)
	if err != nil {
		return nil, false, database.Error(err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	owned(rows, org)
	return rows, more, nil
}

// Get returns org's record id, or nil when there is none (or it is
// another organization's). The id's timestamp confines the lookup to one
// millisecond, hence one partition.
func Get(ctx context.Context, db bun.IDB, org, id uuid.UUID) (*Record, error) {
	t, ok := IDTime(id)
	if !ok {
		return nil, nil
	}
	var r [1]Record
	err := db.NewSelect().TableExpr("request_logs").ColumnExpr(selectColumns).
		Where("organization_id = ?", org).Where("id = ?", id).
		Where("created_at >= ? AND created_at < ?", t, t.Add(time.Millisecond)).Scan(ctx, &r[0])
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, database.Error(err)
	}
	owned(r[:], org)
	return &r[0], nil
}

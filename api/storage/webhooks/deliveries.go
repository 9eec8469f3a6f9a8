package webhooks

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// PageKey implements storage.Row.
func (d *Delivery) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: d.CreatedAt, ID: d.ID} }

// ListDeliveries returns one page of the deliveries of org's endpoint,
// newest first (created_at, then id, descending), each with its attempts
// oldest first, only those of status unless it is "". The endpoint must
// exist (else not_found).
func ListDeliveries(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, endpoint uuid.UUID, status string, p storage.PageRequest) (storage.Page[Delivery], error) {
	if ok, err := storage.Exists(ctx, db, "webhook_endpoints", org, endpoint); err != nil || !ok {
		if err == nil {
			err = errs.NotFoundOf(EndpointKind)
		}
		return storage.Page[Delivery]{}, err
	}
	var items []Delivery
	q := db.NewSelect().Model(&items).
		Where("wd.organization_id = ?", org).
		Where("wd.endpoint_id = ?", endpoint)
	if status != "" {
		// webhook_deliveries_status_list_idx: a few failed deliveries
		// among many are read without the others.
		q = q.Where("wd.status = ?", status)
	}
	if p.After != nil {
		q = q.Where("(wd.created_at, wd.id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.OrderExpr("wd.created_at DESC, wd.id DESC").Limit(int64(p.Limit + 1)).Scan(ctx); err != nil {
		return storage.Page[Delivery]{}, database.Error(err)
	}
	page := storage.Page[Delivery]{Items: items}
	if len(items) > p.Limit {
		page.Items, page.HasMore = items[:p.Limit], true
	}
	if page.Items == nil {
		page.Items = []Delivery{}
	}
	return page, withAttempts(ctx, db, org, page.Items)
}

// MaxEmbeddedAttempts is the most attempts a delivery carries in its
// answer: its latest, oldest first. Nothing bounds how many a delivery
// makes (every POST …/retry opens a fresh window of them), and an answer
// that carried them all could make a GET of a single delivery 82 MB and
// take a pod from 42 to 565 MB; attempt_count still counts the attempts of the
// delivery's window (docs/webhooks.md).
const MaxEmbeddedAttempts = 20

// withAttempts loads the latest MaxEmbeddedAttempts attempts of each of ds
// in one query, each delivery's read newest first through
// webhook_delivery_attempts_delivery_idx and handed out oldest first.
func withAttempts(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ds []Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(ds))
	at := map[uuid.UUID]int{}
	for i := range ds {
		ids[i], at[ds[i].ID] = ds[i].ID, i
		ds[i].Attempts = []Attempt{}
	}
	var as []Attempt
	latest := db.NewSelect().Model((*Attempt)(nil)).
		Where("wa.organization_id = ?", org).
		Where("wa.delivery_id = d.id").
		OrderExpr("wa.started_at DESC, wa.id DESC").Limit(MaxEmbeddedAttempts)
	err := db.NewSelect().
		TableExpr("unnest(?::uuid[]) AS d (id)", pgdialect.Array(ids)).
		Join("CROSS JOIN LATERAL (?) AS wa", latest).
		ColumnExpr("wa.*").
		OrderExpr("wa.started_at ASC, wa.id ASC").Scan(ctx, &as)
	if err != nil {
		return database.Error(err)
	}
	for _, a := range as {
		i := at[a.DeliveryID]
		ds[i].Attempts = append(ds[i].Attempts, a)
	}
	return nil
}

// getDelivery loads one delivery of org's endpoint with its attempts.
func getDelivery(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, endpoint, id uuid.UUID) (*Delivery, error) {
	d, err := storage.Get[Delivery](ctx, db, org, id, DeliveryKind, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("wd.endpoint_id = ?", endpoint)
	})
	if err != nil {
		return nil, err
	}
	ds := []Delivery{*d}
	if err := withAttempts(ctx, db, org, ds); err != nil {
		return nil, err
	}
	return &ds[0], nil
}

// ErrEndpointDisabled refuses a retry on a disabled endpoint: nothing is
// delivered to it until it is enabled again.
var ErrEndpointDisabled = errs.New(errs.InvalidTransition,
	"the endpoint is disabled; enable it (PATCH status enabled) before retrying its deliveries")

// Retry makes a delivery of org's endpoint due now, whatever its status,
// with a fresh retry window, whose backoff starts at its first step
// (window_attempts 0). A delivery being delivered at this moment (its
// lease is live) is left as it is: it is never in flight twice.
//
// The delivery goes to the endpoint's URL as it is now, which may have
// changed since: its type must still be in the endpoint's subscription
// (422 otherwise), and allow, given that type, refuses a key that may not
// send such records there (a key that cannot read them).
func Retry(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, endpoint, id uuid.UUID,
	allow func(changeType string) error) (*Delivery, error) {
	e, err := GetEndpoint(ctx, db, org, endpoint)
	if err != nil {
		return nil, err
	}
	// A delivery the endpoint does not have is not found, whatever else.
	d, err := getDelivery(ctx, db, org, endpoint, id)
	if err != nil {
		return nil, err
	}
	if err := allow(d.Type); err != nil {
		return nil, err
	}
	if !Subscribes(e.EnabledEvents, d.Type) {
		return nil, errs.New(errs.InvalidTransition,
			"the endpoint no longer subscribes to "+d.Type+"; only deliveries of the types in its enabled_events can be retried")
	}
	if e.Status != Enabled {
		return nil, ErrEndpointDisabled
	}
	_, err = db.NewRaw(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = clock_timestamp(),
			first_failed_at = NULL, window_attempts = 0, unprepared_since = NULL, updated_at = clock_timestamp()
		WHERE organization_id = ? AND endpoint_id = ? AND id = ?
		  AND (leased_until IS NULL OR leased_until <= clock_timestamp())`, org, endpoint, id).Exec(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	return getDelivery(ctx, db, org, endpoint, id)
}

package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// backlog is an organization with an endpoint holding a deep backlog and a
// second endpoint with a few deliveries, all written by SQL.
type backlog struct {
	org      tenancy.OrganizationID
	endpoint uuid.UUID // the backlog's
	other    uuid.UUID // 10 deliveries, enabled
}

// seedBacklog makes n changes of a new organization and, for the endpoint
// (with status), a pending delivery of each, in a window opened four days
// ago with 30 failures (every other one due a day from now, the rest an
// hour ago) and one recorded attempt; the other endpoint gets deliveries
// of the first 10 changes, due now, without a window.
func seedBacklog(t *testing.T, db bun.IDB, n int, status string) backlog {
	t.Helper()
	ctx := context.Background()
	b := backlog{org: tenancy.OrganizationID{UUID: uuid.New()}, endpoint: uuid.New(), other: uuid.New()}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (id, name) VALUES (?, 'Backlog')", []any{b.org}},
		{`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, status)
			VALUES (?, ?, 'https://example.com/backlog', '{*}', '\x00', ?)`, []any{b.endpoint, b.org, status}},
		{`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret)
			VALUES (?, ?, 'https://example.com/other', '{*}', '\x00')`, []any{b.other, b.org}},
		{`INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
			SELECT ?, feed_position_now(), 'client.created', 'client', gen_random_uuid(), '{}'::jsonb
			FROM generate_series(1, ?)`, []any{b.org, n}},
		{`INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at,
				first_failed_at, window_attempts, attempt_count, unprepared_since)
			SELECT organization_id, ?, id, seq, type,
				CASE WHEN seq % 2 = 0 THEN clock_timestamp() + interval '1 day' ELSE clock_timestamp() - interval '1 hour' END,
				clock_timestamp() - interval '4 days', 30, 30, clock_timestamp() - interval '4 days'
			FROM changes WHERE organization_id = ?`, []any{b.endpoint, b.org}},
		{`INSERT INTO webhook_delivery_attempts (organization_id, delivery_id, started_at, duration_ms)
			SELECT organization_id, id, clock_timestamp() - interval '1 day', 1 FROM webhook_deliveries WHERE endpoint_id = ?`, []any{b.endpoint}},
		{`INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
			SELECT organization_id, ?, id, seq, type, clock_timestamp() - interval '1 minute'
			FROM changes WHERE organization_id = ? ORDER BY seq LIMIT 10`, []any{b.other, b.org}},
	} {
		if _, err := db.NewRaw(q.sql, q.args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// tupleWork is what the transaction tx has written so far, by table:
// rows inserted, updated and deleted (pg_stat_xact_user_tables counts the
// rows a statement's triggers and cascades write too).
type tupleWork map[string]struct{ Ins, Upd, Del int64 }

func workOf(t *testing.T, tx bun.Tx) tupleWork {
	t.Helper()
	var rows []struct {
		Rel string `bun:"relname"`
		Ins int64  `bun:"n_tup_ins"`
		Upd int64  `bun:"n_tup_upd"`
		Del int64  `bun:"n_tup_del"`
	}
	if err := tx.NewRaw(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_xact_user_tables
		WHERE relname LIKE 'webhook%'`).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	w := tupleWork{}
	for _, r := range rows {
		w[r.Rel] = struct{ Ins, Upd, Del int64 }{r.Ins, r.Upd, r.Del}
	}
	return w
}

// TestDeleteEndpointDoesNotTouchItsDeliveries: deleting an endpoint with
// 3,000 deliveries deletes one row and writes its tombstone, whatever its
// backlog (the DELETE cascaded to every delivery and attempt in one
// statement: a busy endpoint's 1.6 M never finished within the request's
// timeout). Its deliveries are unreachable at once: not claimed, not
// counted due, not listed, not retried; a claim made before the DELETE is
// neither loaded nor sent, and its result is not recorded. The purge then
// deletes them in batches of its size, each a statement of its own, leaves
// the other endpoint's alone, and removes the tombstone. An endpoint
// deleted by a pod of the release before (its statement is the same
// DELETE, which expected the cascade) and the endpoints of a deleted
// organization leave tombstones too.
func TestDeleteEndpointDoesNotTouchItsDeliveries(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	const n = 3000
	b := seedBacklog(t, db, n, webhooks.Enabled)

	// Claimed before the DELETE: up to 4 of each endpoint.
	claims, err := webhooks.ClaimDue(ctx, db, 100, 4, time.Minute, webhooks.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	var before *webhooks.Claim
	for i := range claims {
		if claims[i].EndpointID == b.endpoint {
			before = &claims[i]
		}
	}
	if before == nil {
		t.Fatalf("no claim of the backlog's endpoint among %d", len(claims))
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	w0 := workOf(t, tx)
	if err := webhooks.DeleteEndpoint(ctx, tx, b.org, b.endpoint); err != nil {
		t.Fatal(err)
	}
	w1 := workOf(t, tx)
	for rel, want := range map[string]int64{"webhook_endpoints": 1, "webhook_deliveries": 0, "webhook_delivery_attempts": 0} {
		if got := w1[rel].Del - w0[rel].Del; got != want {
			t.Errorf("the DELETE deleted %d rows of %s, want %d (the backlog is %d deliveries)", got, rel, want, n)
		}
	}
	if got := w1["webhook_endpoint_tombstones"].Ins - w0["webhook_endpoint_tombstones"].Ins; got != 1 {
		t.Errorf("the DELETE wrote %d tombstones, want 1", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// Unreachable.
	if due, err := webhooks.DueCount(ctx, db, 10*n); err != nil || due != 6 {
		t.Errorf("due after the DELETE: %d (%v), want the other endpoint's 6", due, err)
	}
	if _, err := webhooks.ListDeliveries(ctx, db, b.org, b.endpoint, "", storage.PageRequest{Limit: 10}); !errs.Is(err, errs.NotFound) {
		t.Errorf("deliveries of the deleted endpoint: %v, want not found", err)
	}
	if _, err := webhooks.Retry(ctx, db, b.org, b.endpoint, before.ID, func(string) error { return nil }); !errs.Is(err, errs.NotFound) {
		t.Errorf("retry of a deleted endpoint's delivery: %v, want not found", err)
	}
	more, err := webhooks.ClaimDue(ctx, db, 10*n, 10*n, time.Minute, webhooks.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range more {
		if c.EndpointID != b.other {
			t.Fatalf("claimed a delivery of the deleted endpoint")
		}
	}
	if len(more) != 6 {
		t.Errorf("claimed %d after the DELETE, want the other endpoint's 6", len(more))
	}
	if _, found, err := webhooks.LoadMessage(ctx, db, before); err != nil || found {
		t.Errorf("message of a claim made before the DELETE: found %v (%v), want none", found, err)
	}
	if ok, err := webhooks.Sendable(ctx, db, before); err != nil || ok {
		t.Errorf("last look at a claim made before the DELETE: %v (%v), want not sendable", ok, err)
	}
	msg := "refused"
	for _, o := range []webhooks.Outcome{
		{StartedAt: time.Now(), Duration: time.Millisecond},
		{StartedAt: time.Now(), Duration: time.Millisecond, Error: &msg, RetryIn: time.Second, GiveUp: true, RetryFor: time.Hour},
	} {
		if done, err := webhooks.Complete(ctx, db, before, o); err != nil || done != (webhooks.Completed{}) {
			t.Errorf("completing a claim of a deleted endpoint: %+v (%v), want nothing done", done, err)
		}
	}
	var attempts int
	if err := db.NewRaw(`SELECT count(*) FROM webhook_delivery_attempts WHERE delivery_id = ?`, before.ID).Scan(ctx, &attempts); err != nil {
		t.Fatal(err)
	}
	if attempts != 1 {
		t.Errorf("the deleted endpoint's delivery has %d attempts, want the 1 it had", attempts)
	}

	// The purge, in batches.
	batches := &pgtest.Statements{Marker: "a deleted webhook endpoint's deliveries, in batches"}
	counted := db.WithQueryHook(batches)
	const batch = 700
	purged, err := webhooks.PurgeDeletedWith(ctx, counted, batch)
	if err != nil {
		t.Fatal(err)
	}
	if purged != n {
		t.Errorf("purged %d, want %d", purged, n)
	}
	if got, least := len(batches.Sent), (n+batch-1)/batch; got < least {
		t.Errorf("the purge took %d statements, want at least %d (batches of %d)", got, least, batch)
	}
	counts := func() (deliveries, attempts, tombstones int) {
		t.Helper()
		if err := db.NewRaw(`SELECT (SELECT count(*) FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?),
				(SELECT count(*) FROM webhook_delivery_attempts WHERE organization_id = ?),
				(SELECT count(*) FROM webhook_endpoint_tombstones)`, b.org, b.endpoint, b.org).Scan(ctx, &deliveries, &attempts, &tombstones); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d, a, ts := counts(); d != 0 || a != 0 || ts != 0 {
		t.Errorf("after the purge: %d deliveries, %d attempts, %d tombstones, want none", d, a, ts)
	}
	var others int
	if err := db.NewRaw(`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ?`, b.other).Scan(ctx, &others); err != nil {
		t.Fatal(err)
	}
	if others != 10 {
		t.Errorf("the other endpoint has %d deliveries after the purge, want its 10", others)
	}
	if again, err := webhooks.PurgeDeletedEndpoints(ctx, db); err != nil || again != 0 {
		t.Errorf("a second purge: %d (%v), want nothing", again, err)
	}

	// The release before this one deletes with the same statement, and
	// expects the cascade: its DELETE leaves a tombstone all the same.
	if _, err := db.NewRaw(`DELETE FROM webhook_endpoints WHERE organization_id = ? AND id = ?`, b.org, b.other).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if purged, err := webhooks.PurgeDeletedEndpoints(ctx, db); err != nil || purged != 10 {
		t.Errorf("purge after an old release's DELETE: %d (%v), want its 10 deliveries", purged, err)
	}

	// A deleted organization's endpoints: their deliveries go with its
	// changes, their tombstones with the next purge.
	c := seedBacklog(t, db, 20, webhooks.Enabled)
	if err := tenancy.DeleteOrganization(ctx, db, c.org.UUID); err != nil {
		t.Fatal(err)
	}
	if purged, err := webhooks.PurgeDeletedEndpoints(ctx, db); err != nil || purged != 0 {
		t.Errorf("purge after an organization's deletion: %d (%v), want nothing left to delete", purged, err)
	}
	if _, _, ts := counts(); ts != 0 {
		t.Errorf("%d tombstones left after the purges, want none", ts)
	}
}

// TestReenableDoesNotRewriteTheBacklog: re-enabling an endpoint with 3,000
// pending deliveries whose window ran out writes at most
// FreshWindowBatch of them, whatever the backlog (it rewrote every one in
// the PATCH's transaction: 320 k after a 3-day outage never finished
// within the request's timeout). Every one of them is then due at once,
// those whose backoff put them a day ahead too, and each is claimed with a
// fresh window: no first failure, no failures counted, no run of failures
// of ours, so its next failure neither gives up nor disables. A claim
// writes the fresh window into the row, and a failure recorded then starts
// the window at its attempt.
func TestReenableDoesNotRewriteTheBacklog(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	const n = 3000
	b := seedBacklog(t, db, n, webhooks.Disabled)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	w0 := workOf(t, tx)
	enabled := webhooks.Enabled
	e, err := webhooks.UpdateEndpoint(ctx, tx, b.org, b.endpoint, webhooks.EndpointPatch{Status: &enabled},
		func([]string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != webhooks.Enabled {
		t.Fatalf("status %s after the re-enable", e.Status)
	}
	w1 := workOf(t, tx)
	if got := w1["webhook_deliveries"].Upd - w0["webhook_deliveries"].Upd; got > webhooks.FreshWindowBatch {
		t.Errorf("the re-enable updated %d deliveries, want at most %d (the backlog is %d)", got, webhooks.FreshWindowBatch, n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// The other endpoint's 10 and every one of the backlog are due.
	claims, err := webhooks.ClaimDue(ctx, db, 10*n, 10*n, time.Minute, webhooks.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	var mine int
	for _, c := range claims {
		if c.EndpointID != b.endpoint {
			continue
		}
		mine++
		if c.FirstFailedAt != nil || c.WindowAttempts != 0 || c.UnpreparedSince != nil {
			t.Fatalf("claim after the re-enable: first failure %v, %d failures in the window, unprepared since %v; want a fresh window",
				c.FirstFailedAt, c.WindowAttempts, c.UnpreparedSince)
		}
	}
	if mine != n {
		t.Errorf("claimed %d of the re-enabled endpoint's %d pending deliveries, want all, due at once", mine, n)
	}
	// A failure of one of them, claimed after the re-enable, starts its
	// window and counts one failure; the endpoint stays enabled.
	var c *webhooks.Claim
	for i := range claims {
		if claims[i].EndpointID == b.endpoint {
			c = &claims[i]
			break
		}
	}
	msg := "refused"
	started := time.Now()
	done, err := webhooks.Complete(ctx, db, c, webhooks.Outcome{StartedAt: started, Duration: time.Millisecond, Error: &msg,
		RetryIn: time.Second, RetryFor: 72 * time.Hour})
	if err != nil || done != (webhooks.Completed{}) {
		t.Fatalf("the failure: %+v (%v)", done, err)
	}
	var s struct {
		Status   string `bun:"status"`
		Window   int    `bun:"window_attempts"`
		Fresh    bool   `bun:"fresh"`
		Endpoint string `bun:"endpoint"`
	}
	if err := db.NewRaw(`SELECT d.status, d.window_attempts, d.first_failed_at >= e.enabled_at AS fresh, e.status AS endpoint
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ?`, c.ID).Scan(ctx, &s); err != nil {
		t.Fatal(err)
	}
	if s.Status != webhooks.Pending || s.Window != 1 || !s.Fresh || s.Endpoint != webhooks.Enabled {
		t.Errorf("after the first failure since the re-enable: %+v; want pending, 1 failure in a window opened after the re-enable, endpoint enabled", s)
	}
	// Claimed, a delivery is stale no more: what is not due by its own
	// time (here: leased, the other failed one waiting a second) is not
	// claimed again.
	again, err := webhooks.ClaimDue(ctx, db, 10*n, 10*n, time.Minute, webhooks.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Errorf("claimed %d again right after, want none", len(again))
	}
}

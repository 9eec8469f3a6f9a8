package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestOneOrganizationsWritesLeaveConnectionsForOthers: one organization's
// reservation writes on one item, all waiting for its equipment row's lock,
// hold at most its share of the pod's pool (rest.WritesPerOrganization);
// its other writes wait for the write bulkhead, holding no connection, and
// another organization's read is served meanwhile. Before, the writes took
// every connection and the read waited for the lock's holder.
func TestOneOrganizationsWritesLeaveConnectionsForOthers(t *testing.T) {
	const pool = 4
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.DBMaxConns = pool; c.V2RateLimit = 100_000 }))
	busy, quiet := env.NewOrg("Busy"), env.NewOrg("Quiet")
	eq := bookingtest.For(env, busy).Equipment("Popular console", bookingtest.Stock(1000), nil)
	if r := quiet.Post("/api/v2/clients", map[string]any{"name": "Quiet client"}); r.Status != 201 {
		t.Fatalf("create client: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	outside, err := database.Open(ctx, env.Cfg.DatabaseURL, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	lock, err := outside.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback() }()
	if _, err := lock.NewRaw(`SELECT 1 FROM equipment WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE`, busy.ID, eq).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	share := int(rest.WritesPerOrganization(pool))
	n := share + 3
	writes := make(chan *apitest.Response, n)
	for i := range n {
		go func() {
			writes <- busy.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": eq.String(),
				"start_date": fmt.Sprintf("2026-05-%02dT08:00:00Z", i+1), "end_date": fmt.Sprintf("2026-05-%02dT20:00:00Z", i+1)})
		}()
	}
	// The share waits on the lock, holding connections; the rest waits for
	// the bulkhead, holding none.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		var onLock int
		if err := outside.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &onLock); err != nil {
			t.Fatal(err)
		}
		if onLock > share {
			t.Fatalf("%d of the busy organization's writes wait on the lock, holding connections; its share is %d of %d", onLock, share, pool)
		}
		if onLock == share && env.Svc.Writes.Waiting() == int64(n-share) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes on the lock and %d waiting for the bulkhead, want %d and %d", onLock, env.Svc.Writes.Waiting(), share, n-share)
		}
	}
	read := make(chan *apitest.Response, 1)
	go func() { read <- quiet.Get("/api/v2/clients") }()
	select {
	case r := <-read:
		if r.Status != 200 {
			t.Fatalf("the quiet organization's read: %d %s", r.Status, r.Body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the quiet organization's read waited for the busy one's writes")
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	for range n {
		if r := <-writes; r.Status != 201 {
			t.Errorf("a busy organization's write: %d %s", r.Status, r.Body)
		}
	}
}

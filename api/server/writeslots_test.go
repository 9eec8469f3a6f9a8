package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/rest/bulkhead"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestOneOrganizationsWritesLeaveConnectionsForOthers: two organizations'
// reservation writes, each on one item whose equipment row a transaction
// outside holds locked, hold at most the write slots of the pod's pool
// (bulkhead.WriteSlots), one of them at most its share
// (bulkhead.WritesPerOrganization); their other writes wait for the write
// bulkhead, holding no connection. Meanwhile a third organization's read
// is served, and a retry of a keyed write of the busy organization that is
// done is answered from its record at once. Before, the writes took every
// connection and the read waited for the lock; then, with one share per
// organization and no slots kept from the pool, two busy organizations
// took them all; and a keyed retry waited for a slot behind the burst.
func TestOneOrganizationsWritesLeaveConnectionsForOthers(t *testing.T) {
	const pool = 4
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.DBMaxConns = pool; c.V2RateLimit = 100_000 }))
	first, second, quiet := env.NewOrg("Busy"), env.NewOrg("Also busy"), env.NewOrg("Quiet")
	eq1 := bookingtest.For(env, first).Equipment("Popular console", bookingtest.Stock(1000), nil)
	eq2 := bookingtest.For(env, second).Equipment("Popular amp", bookingtest.Stock(1000), nil)
	if r := quiet.Post("/api/v2/clients", map[string]any{"name": "Quiet client"}); r.Status != 201 {
		t.Fatalf("create client: %d %s", r.Status, r.Body)
	}
	reservation := func(eq fmt.Stringer, day int) map[string]any {
		return map[string]any{"equipment_id": eq.String(),
			"start_date": fmt.Sprintf("2026-05-%02dT08:00:00Z", day), "end_date": fmt.Sprintf("2026-05-%02dT20:00:00Z", day)}
	}
	keyed := func() *apitest.Response {
		return first.Do("POST", "/api/v2/equipment_reservations", reservation(eq1, 28), "Idempotency-Key", "burst-retry-1")
	}
	if r := keyed(); r.Status != 201 {
		t.Fatalf("the keyed write: %d %s", r.Status, r.Body)
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
	for _, l := range []struct {
		org *apitest.Org
		eq  fmt.Stringer
	}{{first, eq1}, {second, eq2}} {
		if _, err := lock.NewRaw(`SELECT 1 FROM equipment WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE`, l.org.ID, l.eq).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}

	slots, share := bulkhead.WriteSlots(pool), int(bulkhead.WritesPerOrganization(pool))
	var writes []chan *apitest.Response
	send := func(o *apitest.Org, eq fmt.Stringer, n int) {
		for i := range n {
			w := make(chan *apitest.Response, 1)
			writes = append(writes, w)
			go func() { w <- o.Post("/api/v2/equipment_reservations", reservation(eq, i+1)) }()
		}
	}
	// The first organization takes its share; the second the slots left.
	send(first, eq1, share+2)
	waitWrites(t, outside, env, share, 2)
	send(second, eq2, slots-share+2)
	waitWrites(t, outside, env, slots, 4)

	served := make(chan *apitest.Response, 2)
	go func() { served <- quiet.Get("/api/v2/clients") }()
	go func() { served <- keyed() }()
	for range 2 {
		select {
		case r := <-served:
			if r.Status != 200 && r.Status != 201 {
				t.Fatalf("served during the burst: %d %s", r.Status, r.Body)
			}
			if r.Status == 201 && r.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("the keyed retry was not a replay: %s", r.Body)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the quiet organization's read, or the busy one's keyed retry, waited for the burst")
		}
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if r := <-w; r.Status != 201 {
			t.Errorf("a busy organization's write: %d %s", r.Status, r.Body)
		}
	}
}

// waitWrites waits until onLock writes wait on the outside lock, holding
// connections, and waiting ones for the write bulkhead, holding none; more
// on the lock fails at once.
func waitWrites(t *testing.T, outside *bun.DB, env *apitest.Env, onLock, waiting int) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		var n int
		if err := outside.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n > onLock {
			t.Fatalf("%d writes wait on the lock, holding connections; at most %d may", n, onLock)
		}
		if n == onLock && env.Svc.Writes.Waiting() == int64(waiting) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes on the lock and %d waiting for the bulkhead, want %d and %d", n, env.Svc.Writes.Waiting(), onLock, waiting)
		}
	}
}

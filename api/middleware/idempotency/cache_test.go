package idempotency

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// ttlStore records how long each record Set into the edge store is kept.
type ttlStore struct {
	edge.Store
	mu   sync.Mutex
	ttls map[string]time.Duration
}

func (s *ttlStore) Set(ctx context.Context, k string, v []byte, ttl time.Duration) error {
	s.mu.Lock()
	s.ttls[k] = ttl
	s.mu.Unlock()
	return s.Store.Set(ctx, k, v, ttl)
}

// TestTheEdgeStoreCachesSmallRecordsBriefly: the edge store's copy of a
// completed record is a cache of the database row, kept CachedFor, and
// not made for a record longer than MaxCachedRecord; a retry is replayed
// either way, from the database when the copy is not there, and nothing
// runs twice. Kept 24 hours whatever its size, one organization's keyed
// writes within its rate limit filled a Redis, and every organization's
// keyed writes were refused with 503 until the records expired.
func TestTheEdgeStoreCachesSmallRecordsBriefly(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Cached records", nil)
	if err != nil {
		t.Fatal(err)
	}
	store := &ttlStore{Store: edge.NewMemory(), ttls: map[string]time.Duration{}}
	env := &rest.Env{DB: db}
	app := testApp(t, org.ID, Config{Store: store, DB: db}, func(app *fiber.App) {
		app.Post("/api/v2/clients", func(c *fiber.Ctx) error {
			if _, err := env.Conn(c.UserContext()).NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'c')", org.ID).
				Exec(c.UserContext()); err != nil {
				return database.Error(err)
			}
			size := MaxCachedRecord / 2
			if strings.Contains(string(c.Body()), "large") {
				size = 2 * MaxCachedRecord
			}
			return c.Status(201).SendString(`{"data":"` + strings.Repeat("x", size) + `"}`)
		})
	})
	for _, tc := range []struct {
		key, body string
		cached    bool
	}{
		{"small-1", `{"name":"small"}`, true},
		{"large-1", `{"name":"large"}`, false},
	} {
		first := send(t, app, "POST", "/api/v2/clients", tc.key, tc.body)
		if first.status != 201 {
			t.Fatalf("%s: %d %.200s, want 201", tc.key, first.status, first.body)
		}
		name := StoreKey(org.ID, tc.key)
		kept, found, err := store.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		store.mu.Lock()
		ttl, set := store.ttls[name]
		store.mu.Unlock()
		switch {
		case tc.cached && (!found || !set || ttl != CachedFor):
			t.Fatalf("%s: the edge store holds it %v, set for %v, want it cached for %v", tc.key, found, ttl, CachedFor)
		case !tc.cached && (found || set):
			t.Fatalf("%s: the edge store holds %d bytes (set %v), want neither the record nor its marker", tc.key, len(kept), set)
		}
		retry := send(t, app, "POST", "/api/v2/clients", tc.key, tc.body)
		if retry.status != 201 || retry.body != first.body || retry.header.Get(HeaderReplayed) != "true" {
			t.Fatalf("%s retried: %d replayed %q, %d bytes; want the first answer replayed", tc.key, retry.status,
				retry.header.Get(HeaderReplayed), len(retry.body))
		}
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM clients WHERE organization_id = ?", org.ID).Scan(ctx, &n); err != nil || n != 2 {
		t.Fatalf("%d clients (%v), want one write per key", n, err)
	}
	// The database's replay of the large record does not copy it either.
	store.mu.Lock()
	_, set := store.ttls[StoreKey(org.ID, "large-1")]
	store.mu.Unlock()
	if set {
		t.Fatal("the replay from the database copied the large record into the edge store")
	}
}

// TestAReplayFromTheDatabaseTakesNoSlot: the retry of a completed write
// whose record the edge store does not hold (too large to cache, or past
// CachedFor) is replayed from its row before BeforeTx runs, so it never
// waits for a large write's bulkhead slot, nor is refused when none is
// free. Waiting for one, such a retry would answer 503 "too many large
// reads" while the pod is busy, the moment retries come.
func TestAReplayFromTheDatabaseTakesNoSlot(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Busy slots", nil)
	if err != nil {
		t.Fatal(err)
	}
	busy, slots := false, 0
	env := &rest.Env{DB: db}
	app := testApp(t, org.ID, Config{Store: edge.NewMemory(), DB: db,
		BeforeTx: func(c *fiber.Ctx) Wait {
			return func() (func(), error) {
				slots++
				if busy {
					return nil, &errs.Error{Code: errs.ServiceUnavailable, Message: "too many large reads in progress; retry shortly", RetryAfter: 1}
				}
				return func() {}, nil
			}
		}}, func(app *fiber.App) {
		app.Patch("/api/v2/clients/:id", func(c *fiber.Ctx) error {
			if _, err := env.Conn(c.UserContext()).NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'c')", org.ID).
				Exec(c.UserContext()); err != nil {
				return database.Error(err)
			}
			return c.Status(200).SendString(`{"data":"` + strings.Repeat("x", 2*MaxCachedRecord) + `"}`)
		})
	})
	first := send(t, app, "PATCH", "/api/v2/clients/c1", "slot-1", `{"name":"a"}`)
	if first.status != 200 || slots != 1 {
		t.Fatalf("first: %d after %d slots, want 200 after 1", first.status, slots)
	}
	busy = true
	retry := send(t, app, "PATCH", "/api/v2/clients/c1", "slot-1", `{"name":"a"}`)
	if retry.status != 200 || retry.header.Get(HeaderReplayed) != "true" || retry.body != first.body || slots != 1 {
		t.Fatalf("retry while no slot is free: %d replayed %q after %d slots; want the replay, no slot asked for",
			retry.status, retry.header.Get(HeaderReplayed), slots)
	}
	other := send(t, app, "PATCH", "/api/v2/clients/c1", "slot-1", `{"name":"b"}`)
	if other.status != 409 || !strings.Contains(other.body, "idempotency_key_mismatch") || slots != 1 {
		t.Fatalf("another request with the key: %d %.200s after %d slots; want 409 mismatch, no slot asked for", other.status, other.body, slots)
	}
}

// TestOnlyAWaitingWriteLooksFirst: a fresh keyed write looks its key's row
// up before its transaction only when BeforeTx gives it something to wait
// for (a large write's slot); every other keyed write claims the key in
// its transaction at once, which finds an existing row as well. A look
// before every keyed write would be a query each can do without.
func TestOnlyAWaitingWriteLooksFirst(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Looks", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		waits bool
		looks int
	}{
		{"waits for nothing", false, 0},
		{"waits for a slot", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			looks := &pgtest.Statements{Marker: "AS age_seconds"}
			waited := 0
			app := testApp(t, org.ID, Config{Store: edge.NewMemory(), DB: db.WithQueryHook(looks),
				BeforeTx: func(c *fiber.Ctx) Wait {
					if !tc.waits {
						return nil
					}
					return func() (func(), error) { waited++; return func() {}, nil }
				}}, func(app *fiber.App) {
				app.Post("/api/v2/clients", func(c *fiber.Ctx) error { return c.Status(201).SendString(`{"data":{}}`) })
			})
			got := send(t, app, "POST", "/api/v2/clients", "look-"+tc.name, `{"name":"a"}`)
			if got.status != 201 || len(looks.Sent) != tc.looks || waited != tc.looks {
				t.Fatalf("%d after %d looks and %d waits, want 201 after %d of each:\n%s",
					got.status, len(looks.Sent), waited, tc.looks, strings.Join(looks.Sent, "\n"))
			}
		})
	}
}

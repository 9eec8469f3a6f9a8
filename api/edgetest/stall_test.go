package edgetest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/edge"
)

// TestStalledClaimIsReleased pauses the test's own Redis (SIGSTOP) while a
// keyed write claims its key: the claim times out and the write is refused
// with 503, unexecuted, but the claim waits in a pooled connection and runs
// when Redis resumes, leaving an in-progress marker. The middleware takes
// that marker back once Redis answers, so the retry the 503 asked for
// executes; left there, the marker would stay until its TTL (30 s), every
// retry meanwhile a 409 idempotency_key_in_use for a request that never ran.
// The test watches the marker itself: it must leave while its TTL still has
// most of its 30 s, by release, not by expiry.
func TestStalledClaimIsReleased(t *testing.T) {
	rs := startRedis(t)
	env, _ := newApp(t, apitest.WithConfig(func(c *config.Config) { c.RedisURL = rs.URL() }))
	a := env.NewOrg("A")
	app := env.Svc.App
	keyed := func(key string) *reply {
		return viaApp(t, app, "POST", "/api/v2/clients", a.Key, `{"name":"Stalled"}`, keyHeader, key)
	}
	// Several writes at once leave several idle connections in the pool,
	// as on a busy pod: the stalled claim is written into one of them.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if r := keyed(fmt.Sprint("warm-", i)); r.Status != http.StatusCreated {
				t.Errorf("warm-up write: %d %s", r.Status, r.Body)
			}
		})
	}
	wg.Wait()

	rs.Pause()
	r := keyed("stalled")
	rs.Resume()
	if r.Status != http.StatusServiceUnavailable {
		t.Fatalf("keyed write while Redis is stalled: %d %s, want 503", r.Status, r.Body)
	}

	store, ok := env.Svc.Edge.(*edge.Redis)
	if !ok {
		t.Fatalf("edge store %T, want *edge.Redis", env.Svc.Edge)
	}
	name := store.Key(idempotency.StoreKey(a.ID, "stalled"))
	c := redis.NewClient(&redis.Options{Addr: rs.URL()[len("redis://") : len(rs.URL())-len("/0")]})
	defer c.Close()
	ctx := context.Background()
	// The marker appears when Redis runs the stalled claim, and must leave
	// by release: seen with most of its TTL left, then gone.
	var ttl time.Duration
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		d, err := c.PTTL(ctx, name).Result()
		if err != nil {
			t.Fatal(err)
		}
		if d > 0 {
			ttl = d // the marker is there, with this long to live
		} else if ttl > 0 {
			break // seen, then gone
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled claim's marker (seen: %v) did not leave", ttl > 0)
		}
	}
	if ttl < idempotency.DefaultLockTTL/2 {
		t.Fatalf("the marker had %v left when last seen: it expired rather than being released", ttl)
	}
	if r := keyed("stalled"); r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("the retry the 503 asked for: %d %s, want it executed (201)", r.Status, r.Body)
	}
	if n := keyRows(t, env, a.ID, "stalled"); n != 1 {
		t.Fatalf("%d idempotency rows for the key, want 1", n)
	}
}

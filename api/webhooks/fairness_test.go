package webhooks_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/apitest"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// The claim tests below drive store.ClaimDue directly (the worker is off)
// and never complete a claim, so every lease stays live for the whole test
// and an endpoint that reached its cap stays at it.
const fairLease = time.Hour

// fairEndpoints registers n endpoints of o (one receiver serves them all;
// nothing is sent) and returns their ids in registration order.
func fairEndpoints(t *testing.T, o *apitest.Org, rcv *receiver, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = register(t, o, rcv, "client.created")
	}
	return ids
}

// queueDue creates that many clients of o through the API (one change
// each) and queues one due delivery per change for each of the endpoints, as
// the fan-out does (change by change, every endpoint), with due times that
// increase strictly in that order and lie in the past, after every delivery
// queued before. The fan-out itself is not used: it waits for the cluster's
// visibility horizon, which other packages' tests may hold back.
func queueDue(t *testing.T, db *bun.DB, o *apitest.Org, endpoints []string, changes int) {
	t.Helper()
	before := map[string]bool{}
	var seen []string
	if err := db.NewRaw("SELECT id::text FROM changes WHERE organization_id = ?", o.ID).Scan(context.Background(), &seen); err != nil {
		t.Fatal(err)
	}
	for _, id := range seen {
		before[id] = true
	}
	for i := 0; i < changes; i++ {
		createClient(t, o, "fair")
	}
	var all []string
	if err := db.NewRaw("SELECT id::text FROM changes WHERE organization_id = ? ORDER BY seq", o.ID).Scan(context.Background(), &all); err != nil {
		t.Fatal(err)
	}
	var fresh []string
	for _, id := range all {
		if !before[id] {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) != changes {
		t.Fatalf("%d new changes, want %d", len(fresh), changes)
	}
	// Due times: an hour ago plus a millisecond per delivery, after the
	// latest delivery already queued (so the last call queues the newest).
	_, err := db.NewRaw(`/* every organization: the test's queue, after every delivery queued */
		INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
		SELECT c.organization_id, e.id, c.id, c.seq, c.type,
			greatest(clock_timestamp() - interval '1 hour', (SELECT max(created_at) FROM webhook_deliveries))
				+ make_interval(secs => 0.001 * row_number() OVER (ORDER BY c.seq, e.ord))
		FROM changes c
		JOIN unnest(?::uuid[]) WITH ORDINALITY AS e(id, ord) ON true
		WHERE c.organization_id = ? AND c.id = ANY(?::uuid[])`,
		pgdialect.Array(endpoints), o.ID, pgdialect.Array(fresh)).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// created_at stands for "queued" above: keep it in due order too.
	if _, err := db.NewRaw(`UPDATE webhook_deliveries SET created_at = next_attempt_at
		WHERE organization_id = ? AND change_id = ANY(?::uuid[])`, o.ID, pgdialect.Array(fresh)).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// liveLeases is every endpoint's count of live leases.
func liveLeases(t *testing.T, db *bun.DB) map[string]int {
	t.Helper()
	var rows []struct {
		Endpoint string `bun:"endpoint"`
		N        int    `bun:"n"`
	}
	if err := db.NewRaw(`/* every organization: the test's cap check */
		SELECT endpoint_id::text AS endpoint, count(*) AS n FROM webhook_deliveries
		WHERE status = 'pending' AND leased_until > clock_timestamp() GROUP BY endpoint_id`).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Endpoint] = r.N
	}
	return out
}

// checkCap fails when an endpoint has more than perEndpoint live leases.
func checkCap(t *testing.T, db *bun.DB, perEndpoint int, when string) map[string]int {
	t.Helper()
	live := liveLeases(t, db)
	for ep, n := range live {
		if n > perEndpoint {
			t.Fatalf("%s: endpoint %s has %d live leases, cap %d", when, ep, n, perEndpoint)
		}
	}
	return live
}

// TestClaimFairAcrossOrganizations is the backlog of one organization
// (more endpoints than a claim takes, each with more due deliveries than
// its cap) and one delivery of another organization, queued last: claiming
// again and again without completing, the other organization's delivery is
// claimed within ceil(endpoints/limit)+1 claims, every endpoint of the
// backlog gets a turn as soon, and no endpoint ever has more than its cap
// in flight. Before the fix, the same few endpoints won every claim and,
// once at their cap, took the whole limit while claiming nothing.
func TestClaimFairAcrossOrganizations(t *testing.T) {
	const (
		n           = 7 // endpoints of the backlog
		perEach     = 3 // due deliveries per endpoint
		limit       = 3
		perEndpoint = 2
	)
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	db := env.Svc.DB
	ctx := context.Background()
	rcv := newReceiver(t)
	a := env.NewOrg("backlog")
	aEndpoints := fairEndpoints(t, a, rcv, n)
	queueDue(t, db, a, aEndpoints, perEach)
	b := env.NewOrg("bystander")
	bEndpoint := fairEndpoints(t, b, rcv, 1)
	queueDue(t, db, b, bEndpoint, 1)

	bound := (n+limit-1)/limit + 1
	claimed := map[uuid.UUID]bool{}
	bAt := 0
	for call := 1; call <= 50; call++ {
		claims, err := store.ClaimDue(ctx, db, limit, perEndpoint, fairLease, store.Shares{})
		if err != nil {
			t.Fatal(err)
		}
		if len(claims) > limit {
			t.Fatalf("claim %d: %d claims, limit %d", call, len(claims), limit)
		}
		for _, c := range claims {
			if claimed[c.ID] {
				t.Fatalf("claim %d: delivery %s claimed again while its lease lives", call, c.ID)
			}
			claimed[c.ID] = true
			if c.OrganizationID == b.ID && bAt == 0 {
				bAt = call
			}
		}
		live := checkCap(t, db, perEndpoint, fmt.Sprintf("claim %d", call))
		if call == bound {
			for i, ep := range aEndpoints {
				if live[ep] == 0 {
					t.Errorf("after %d claims, endpoint %d of the backlog has had no turn: %v", call, i+1, live)
				}
			}
		}
		if len(claims) == 0 {
			break
		}
	}
	t.Logf("the other organization's delivery was claimed at claim %d (bound %d)", bAt, bound)
	if bAt == 0 || bAt > bound {
		t.Fatalf("the other organization's delivery was claimed at claim %d, want within %d", bAt, bound)
	}
	// Nothing is left that the caps allow: every endpoint is at its cap
	// (or has nothing more due).
	live := checkCap(t, db, perEndpoint, "the end")
	for i, ep := range aEndpoints {
		if live[ep] != perEndpoint {
			t.Errorf("endpoint %d of the backlog ends with %d live leases, want %d", i+1, live[ep], perEndpoint)
		}
	}
	if live[bEndpoint[0]] != 1 || len(claimed) != n*perEndpoint+1 {
		t.Errorf("claimed %d deliveries (the other organization's endpoint: %d), want %d", len(claimed), live[bEndpoint[0]], n*perEndpoint+1)
	}
}

// TestClaimSkipsEndpointsAtCap: endpoints at their cap do not use up the
// limit. With limit L, L endpoints at their cap (each with older deliveries
// still due) and one free endpoint with the newest due delivery, one claim
// takes the free endpoint's delivery.
func TestClaimSkipsEndpointsAtCap(t *testing.T) {
	const (
		limit       = 3
		perEndpoint = 2
	)
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	db := env.Svc.DB
	ctx := context.Background()
	rcv := newReceiver(t)
	a := env.NewOrg("capped")
	capped := fairEndpoints(t, a, rcv, limit)
	free := fairEndpoints(t, a, rcv, 1)
	queueDue(t, db, a, capped, perEndpoint+2)
	first, err := store.ClaimDue(ctx, db, limit*perEndpoint, perEndpoint, fairLease, store.Shares{})
	if err != nil || len(first) != limit*perEndpoint {
		t.Fatalf("filling the caps: %d claims, %v", len(first), err)
	}
	live := checkCap(t, db, perEndpoint, "filling the caps")
	for i, ep := range capped {
		if live[ep] != perEndpoint {
			t.Fatalf("endpoint %d has %d live leases, want its cap %d", i+1, live[ep], perEndpoint)
		}
	}
	queueDue(t, db, a, free, 1)
	got, err := store.ClaimDue(ctx, db, limit, perEndpoint, fairLease, store.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].EndpointID.String() != free[0] {
		t.Fatalf("claimed %d deliveries (%+v), want the free endpoint's one", len(got), got)
	}
	checkCap(t, db, perEndpoint, "the free endpoint's claim")
}

// TestClaimConcurrent is several pods claiming at once: no delivery is
// claimed twice, no endpoint exceeds its cap, and once they are done every
// endpoint is at its cap.
func TestClaimConcurrent(t *testing.T) {
	const (
		perOrg      = 4
		perEach     = 5
		perEndpoint = 2
		pods        = 8
	)
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	db := env.Svc.DB
	ctx := context.Background()
	rcv := newReceiver(t)
	var all []string
	for _, name := range []string{"one", "two"} {
		o := env.NewOrg(name)
		eps := fairEndpoints(t, o, rcv, perOrg)
		queueDue(t, db, o, eps, perEach)
		all = append(all, eps...)
	}
	var (
		mu      sync.Mutex
		claimed = map[uuid.UUID]int{}
		wg      sync.WaitGroup
		errs    = make(chan error, pods)
	)
	for p := 0; p < pods; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				claims, err := store.ClaimDue(ctx, db, 2, perEndpoint, fairLease, store.Shares{})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, c := range claims {
					claimed[c.ID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkCap(t, db, perEndpoint, "the concurrent claims")
	// Whatever the pods skipped (locked by another) is claimed now.
	for {
		claims, err := store.ClaimDue(ctx, db, 100, perEndpoint, fairLease, store.Shares{})
		if err != nil {
			t.Fatal(err)
		}
		if len(claims) == 0 {
			break
		}
		for _, c := range claims {
			claimed[c.ID]++
		}
	}
	for id, k := range claimed {
		if k != 1 {
			t.Errorf("delivery %s claimed %d times", id, k)
		}
	}
	live := checkCap(t, db, perEndpoint, "the end")
	for i, ep := range all {
		if live[ep] != perEndpoint {
			t.Errorf("endpoint %d ends with %d live leases, want %d", i+1, live[ep], perEndpoint)
		}
	}
	if len(claimed) != len(all)*perEndpoint {
		t.Errorf("claimed %d deliveries, want %d", len(claimed), len(all)*perEndpoint)
	}
}

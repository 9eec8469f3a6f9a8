package webhooks_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// TestASlowOrganizationLeavesASlot: an organization whose receiver holds
// every request (as one that answers just before the timeout does) holds at
// most its share of a process's delivery slots, so another organization's
// delivery is sent while those requests are still held. Without the share
// the slow organization's deliveries took both slots of the process, and
// the other's waited for the first attempt to end (the timeout; here longer
// than the test's wait).
func TestASlowOrganizationLeavesASlot(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) {
		w.Workers = 2
		w.EndpointConcurrency = 4
		w.Timeout = 10 * time.Minute
		w.Lease = w.Timeout + 5*time.Second
	})
	slow := newReceiver(t)
	var held atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	slow.hold = func(*http.Request) {
		held.Add(1)
		<-release
	}
	b := env.NewOrg("slow receiver")
	register(t, b, slow, "client.created")
	for range 3 {
		createClient(t, b, "held")
	}
	waitFor(t, "the slow organization's first attempt to be held", func() bool { return held.Load() >= 1 })

	fast := newReceiver(t)
	a := env.NewOrg("bystander")
	register(t, a, fast, "client.created")
	id := createClient(t, a, "sent")
	waitFor(t, "the other organization's delivery, while the slow one's requests are held", func() bool {
		return created(fast)[id] == 1
	})
	if n := held.Load(); n != 1 {
		t.Errorf("the slow organization had %d attempts in flight in a process of 2 slots, want its share, 1", n)
	}
	once.Do(func() { close(release) })
}

// TestClaimKeepsEachOrganizationWithinItsShare drives the claim directly:
// an organization with due deliveries on two endpoints gets what its share
// leaves (one of two, then none), counted across its endpoints, while
// another organization's delivery is claimed beside it.
func TestClaimKeepsEachOrganizationWithinItsShare(t *testing.T) {
	env, db, rcv := claimSetup(t)
	a := env.NewOrg("busy")
	queueDue(t, db, a, fairEndpoints(t, a, rcv, 2), 2)
	b := env.NewOrg("other")
	queueDue(t, db, b, fairEndpoints(t, b, rcv, 1), 1)

	tests := []struct {
		name  string
		held  int // a's slots held in the process
		wantA int
		wantB int
	}{
		{"one left of a's share", 1, 1, 1},
		{"a's share all held", 2, 0, 0}, // b's one delivery went in the first claim
	}
	for _, tt := range tests {
		got := claimByOrg(t, db, 10, store.Shares{Cap: 2, Held: map[uuid.UUID]int{a.ID: tt.held}})
		if got[a.ID] != tt.wantA || got[b.ID] != tt.wantB {
			t.Fatalf("%s: claimed %d of a and %d of b, want %d and %d", tt.name, got[a.ID], got[b.ID], tt.wantA, tt.wantB)
		}
	}
}

// TestClaimSpendsNoLimitBeyondAShare: an organization with part of its
// share left locks no more of its endpoints than that part (each gives at
// least one delivery), so the claim's limit is left to another
// organization's due delivery instead of endpoints whose deliveries would
// be dropped. Before, a of four endpoints took the limit of 4, the claim
// kept 3 of a, and b waited for the next poll.
func TestClaimSpendsNoLimitBeyondAShare(t *testing.T) {
	env, db, rcv := claimSetup(t)
	a := env.NewOrg("busy")
	queueDue(t, db, a, fairEndpoints(t, a, rcv, 4), 1)
	b := env.NewOrg("other")
	queueDue(t, db, b, fairEndpoints(t, b, rcv, 1), 1)
	got := claimByOrg(t, db, 4, store.Shares{Cap: 3, Held: map[uuid.UUID]int{}})
	if got[a.ID] != 3 || got[b.ID] != 1 {
		t.Fatalf("claimed %d of a and %d of b, want 3 and 1 (4 free slots, a's share 3, b has one due)", got[a.ID], got[b.ID])
	}
}

// TestAnAllowanceIsDealtOnePerEndpointPerTurn: within what an organization's
// share leaves, the claim still deals one delivery per endpoint per turn:
// an allowance of 2 over an endpoint with 3 due and one with 1 due claims
// one of each, not two of the first.
func TestAnAllowanceIsDealtOnePerEndpointPerTurn(t *testing.T) {
	env, db, rcv := claimSetup(t)
	a := env.NewOrg("busy")
	eps := fairEndpoints(t, a, rcv, 2)
	queueDue(t, db, a, eps[:1], 3)
	queueDue(t, db, a, eps[1:], 1)
	claims, err := store.ClaimDue(context.Background(), db, 10, 4, fairLease, store.Shares{Cap: 3, Held: map[uuid.UUID]int{a.ID: 1}})
	if err != nil {
		t.Fatal(err)
	}
	per := map[uuid.UUID]int{}
	for _, c := range claims {
		per[c.EndpointID]++
	}
	if len(claims) != 2 || len(per) != 2 {
		t.Fatalf("claimed %d over %d endpoints, want 2, one of each endpoint", len(claims), len(per))
	}
}

// TestAnAllowanceGoesToTheEndpointRankedFirst: when an organization's share
// leaves fewer deliveries than it has endpoints due, they go to its
// endpoints in the claim's ranking: the fewest in flight first, then the
// oldest due.
func TestAnAllowanceGoesToTheEndpointRankedFirst(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// setup queues o's deliveries and returns the endpoint whose
		// delivery the allowance of one must go to.
		setup func(t *testing.T, db *bun.DB, o *apitest.Org, rcv *receiver) string
	}{
		{"the oldest due", func(t *testing.T, db *bun.DB, o *apitest.Org, rcv *receiver) string {
			eps := fairEndpoints(t, o, rcv, 2)
			queueDue(t, db, o, eps[1:], 1) // older
			queueDue(t, db, o, eps[:1], 1)
			return eps[1]
		}},
		{"the fewest in flight, before an older due", func(t *testing.T, db *bun.DB, o *apitest.Org, rcv *receiver) string {
			eps := fairEndpoints(t, o, rcv, 2)
			queueDue(t, db, o, eps[:1], 2) // older, and one of them goes in flight below
			queueDue(t, db, o, eps[1:], 1)
			first, err := store.ClaimDue(ctx, db, 1, 4, fairLease, store.Shares{})
			if err != nil || len(first) != 1 || first[0].EndpointID.String() != eps[0] {
				t.Fatalf("the first claim: %v %v, want the older endpoint's delivery", first, err)
			}
			return eps[1]
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, db, rcv := claimSetup(t)
			o := env.NewOrg("busy")
			want := tt.setup(t, db, o, rcv)
			claims, err := store.ClaimDue(ctx, db, 10, 4, fairLease, store.Shares{Cap: 2, Held: map[uuid.UUID]int{o.ID: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if len(claims) != 1 || claims[0].EndpointID.String() != want {
				t.Fatalf("claimed %d deliveries (%v), want the one of endpoint %s", len(claims), claims, want)
			}
		})
	}
}

// claimSetup is what the claim tests start from: an API whose process runs
// no delivery worker, so that only the test claims, its database, and a
// receiver for the endpoints.
func claimSetup(t *testing.T) (*apitest.Env, *bun.DB, *receiver) {
	t.Helper()
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	return env, env.Svc.DB, newReceiver(t)
}

// claimByOrg runs one claim of up to limit deliveries, at most 4 of an
// endpoint, and counts what it claimed of each organization.
func claimByOrg(t *testing.T, db *bun.DB, limit int, shares store.Shares) map[uuid.UUID]int {
	t.Helper()
	claims, err := store.ClaimDue(context.Background(), db, limit, 4, fairLease, shares)
	if err != nil {
		t.Fatal(err)
	}
	got := map[uuid.UUID]int{}
	for _, c := range claims {
		got[c.OrganizationID]++
	}
	return got
}

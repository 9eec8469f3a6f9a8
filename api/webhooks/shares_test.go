package webhooks_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

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
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	db := env.Svc.DB
	rcv := newReceiver(t)
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
		claims, err := store.ClaimDue(context.Background(), db, 10, 4, fairLease,
			store.Shares{Cap: 2, Held: map[uuid.UUID]int{a.ID: tt.held}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[uuid.UUID]int{}
		for _, c := range claims {
			got[c.OrganizationID]++
		}
		if got[a.ID] != tt.wantA || got[b.ID] != tt.wantB {
			t.Fatalf("%s: claimed %d of a and %d of b, want %d and %d", tt.name, got[a.ID], got[b.ID], tt.wantA, tt.wantB)
		}
	}
}

package bulkhead

import (
	"context"
	"sync"

	"github.com/google/uuid"
)

// fairSlots hands out a bulkhead's slots among tenants: a tenant holds at
// most its cap at once, and a slot that frees goes to the waiting tenant
// that holds the fewest, the longest-waiting first among equals, so that
// busy tenants share the slots evenly however many requests each queues
// (max-min fairness). Within a tenant, requests are served in the order
// they came. One semaphore serving every waiter in arrival order would
// make a tenant's one request, queued after another tenant's twenty large
// reads, wait behind all twenty (docs/architecture.md, "Memory").
type fairSlots struct {
	mu      sync.Mutex
	free    int64
	size    int64
	perOrg  int64 // a tenant's cap; the nil tenant's is size
	tenants map[uuid.UUID]*tenantSlots
	arrived uint64 // the arrival count: a waiter's place in line
}

// tenantSlots is one tenant's held slots and waiters, kept while it has
// either.
type tenantSlots struct {
	held    int64
	waiters []*slotWaiter // oldest first
}

// slotWaiter is one request waiting for a slot; granted is set, and ready
// closed, when a slot is handed to it (under fairSlots.mu).
type slotWaiter struct {
	ready   chan struct{}
	granted bool
	arrival uint64
}

func newFairSlots(size, perOrg int64) *fairSlots {
	return &fairSlots{free: size, size: size, perOrg: perOrg, tenants: map[uuid.UUID]*tenantSlots{}}
}

// capOf is how many slots tenant may hold at once. Requests without a
// tenant (uuid.Nil) share one line, capped only by the bulkhead's size.
func (f *fairSlots) capOf(tenant uuid.UUID) int64 {
	if tenant == uuid.Nil {
		return f.size
	}
	return f.perOrg
}

// acquire waits for a slot for tenant until ctx ends; queued is called once
// the request is in line (it was not served at once). A slot handed over
// as ctx ends is kept: the request got it.
func (f *fairSlots) acquire(ctx context.Context, tenant uuid.UUID, queued func()) error {
	f.mu.Lock()
	t := f.tenant(tenant)
	if f.takeFree(tenant, t) {
		f.mu.Unlock()
		return nil
	}
	f.arrived++
	w := &slotWaiter{ready: make(chan struct{}), arrival: f.arrived}
	t.waiters = append(t.waiters, w)
	f.mu.Unlock()
	queued()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.granted {
		return nil
	}
	for i, x := range t.waiters {
		if x == w {
			t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
			break
		}
	}
	// The tenant's next waiter may now be first in line for a free slot.
	f.dispatch()
	f.forget(tenant, t)
	return ctx.Err()
}

// tryAcquire takes a slot for tenant if one is free for it now (takeFree,
// acquire's first step), and reports whether it did; it never waits.
func (f *fairSlots) tryAcquire(tenant uuid.UUID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tenant(tenant)
	if f.takeFree(tenant, t) {
		return true
	}
	f.forget(tenant, t)
	return false
}

// takeFree takes a slot for tenant (t) when one is free for it now: a slot
// is free, the tenant is below its cap, and none of its requests waits
// ahead of this one. Called with mu held.
func (f *fairSlots) takeFree(tenant uuid.UUID, t *tenantSlots) bool {
	if f.free > 0 && t.held < f.capOf(tenant) && len(t.waiters) == 0 {
		f.free--
		t.held++
		return true
	}
	return false
}

// release gives back a slot tenant held and hands the free slots on.
func (f *fairSlots) release(tenant uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tenants[tenant]
	f.free++
	t.held--
	f.dispatch()
	f.forget(tenant, t)
}

// dispatch hands free slots to waiters: each to the first waiter of the
// tenant, below its cap, that holds the fewest slots, the one whose first
// waiter came earliest among equals. Called with mu held.
func (f *fairSlots) dispatch() {
	for f.free > 0 {
		var next *tenantSlots
		for id, t := range f.tenants {
			if len(t.waiters) == 0 || t.held >= f.capOf(id) {
				continue
			}
			if next == nil || t.held < next.held || (t.held == next.held && t.waiters[0].arrival < next.waiters[0].arrival) {
				next = t
			}
		}
		if next == nil {
			return
		}
		w := next.waiters[0]
		next.waiters = next.waiters[1:]
		next.held++
		f.free--
		w.granted = true
		close(w.ready)
	}
}

// tenant returns tenant's entry, made if missing. Called with mu held.
func (f *fairSlots) tenant(id uuid.UUID) *tenantSlots {
	t := f.tenants[id]
	if t == nil {
		t = &tenantSlots{}
		f.tenants[id] = t
	}
	return t
}

// forget drops tenant's entry once it holds and waits for nothing. Called
// with mu held.
func (f *fairSlots) forget(id uuid.UUID, t *tenantSlots) {
	if t.held == 0 && len(t.waiters) == 0 {
		delete(f.tenants, id)
	}
}

package delivery

import (
	"sync"

	"github.com/google/uuid"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
)

// organizationShare is how many of a process's workers delivery slots one
// organization may hold at once: all but one, so that an organization whose
// receivers answer slowly (an attempt holds its slot up to the timeout)
// always leaves a slot to the others (docs/webhooks.md, "Fairness"). A
// process with one slot has nothing to spare.
func organizationShare(workers int) int { return max(workers-1, 1) }

// heldSlots counts the delivery slots each organization holds in this
// process, for the claim's shares.
type heldSlots struct {
	mu   sync.Mutex
	cap  int
	held map[uuid.UUID]int
}

func newHeldSlots(workers int) *heldSlots {
	return &heldSlots{cap: organizationShare(workers), held: map[uuid.UUID]int{}}
}

// take records a slot org's claim took.
func (h *heldSlots) take(org uuid.UUID) {
	h.mu.Lock()
	h.held[org]++
	h.mu.Unlock()
}

// give records the end of one of org's attempts.
func (h *heldSlots) give(org uuid.UUID) {
	h.mu.Lock()
	if h.held[org]--; h.held[org] <= 0 {
		delete(h.held, org)
	}
	h.mu.Unlock()
}

// shares is the claim's cap per organization, with the slots held now.
func (h *heldSlots) shares() store.Shares {
	h.mu.Lock()
	defer h.mu.Unlock()
	held := make(map[uuid.UUID]int, len(h.held))
	for org, n := range h.held {
		held[org] = n
	}
	return store.Shares{Cap: h.cap, Held: held}
}

package delivery

import (
	"testing"

	"github.com/google/uuid"
)

func TestOrganizationShare(t *testing.T) {
	tests := []struct{ workers, want int }{
		{1, 1}, // nothing to spare
		{2, 1},
		{4, 3}, // the default
		{16, 15},
	}
	for _, tt := range tests {
		if got := organizationShare(tt.workers); got != tt.want {
			t.Errorf("organizationShare(%d) = %d, want %d", tt.workers, got, tt.want)
		}
	}
}

// TestHeldSlotsCountPerOrganization: the shares a claim gets name each
// organization that holds slots with how many, and forget one that holds
// none again.
func TestHeldSlotsCountPerOrganization(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	h := newHeldSlots(4)
	h.take(a)
	h.take(a)
	h.take(b)
	h.give(b)
	s := h.shares()
	if s.Cap != 3 || len(s.Held) != 1 || s.Held[a] != 2 {
		t.Fatalf("shares %+v, want cap 3 and only a holding 2", s)
	}
	h.take(a)
	if s.Held[a] != 2 {
		t.Fatalf("a claim's shares changed after it was taken: %+v", s)
	}
}

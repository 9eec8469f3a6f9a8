package reservations

import (
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func ptr(s string) *string { return &s }

// text shows a stored nullable text as the API answers it.
func text(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// TestDecideStoresOnlyAForcedOverride: over stock, only a forced override
// stores its reason and cost ownership; warn mode without force_overbook
// lets the write through with neither (it stored the cost ownership), and a
// write that fits stock stores no override at all.
func TestDecideStoresOnlyAForcedOverride(t *testing.T) {
	short := &OverbookDetails{Requested: 2, Available: 1, Deficit: 1}
	given := Override{Reason: ptr("sub-hire"), CostOwnership: ptr("absorbed"), CostOwnershipSent: true}
	forced := given
	forced.Force = true
	tests := []struct {
		name            string
		mode            tenancy.StockGuardMode
		short           *OverbookDetails
		ov              Override
		overbooked      bool
		reason, owner   string
		warned, blocked bool
	}{
		{"warn, not forced", tenancy.StockGuardWarn, short, given, true, "null", "null", true, false},
		{"warn, forced", tenancy.StockGuardWarn, short, forced, true, "sub-hire", "absorbed", false, false},
		{"block, forced", tenancy.StockGuardBlock, short, forced, true, "sub-hire", "absorbed", false, false},
		{"block, not forced", tenancy.StockGuardBlock, short, given, false, "was", "was", false, true},
		{"fits, forced", tenancy.StockGuardBlock, nil, forced, false, "null", "null", false, false},
		{"fits in warn mode", tenancy.StockGuardWarn, nil, given, false, "null", "null", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Reservation{OverbookReason: ptr("was"), OverbookCostOwnership: ptr("was")}
			w, err := decide(tt.mode, tt.short, r, tt.ov)
			if blocked := errs.Is(err, errs.OverbookBlocked); blocked != tt.blocked || (err != nil && !blocked) {
				t.Fatalf("err = %v, want blocked %v", err, tt.blocked)
			}
			if (w != nil) != tt.warned {
				t.Errorf("warning = %v, want one: %v", w, tt.warned)
			}
			if r.Overbooked != tt.overbooked || text(r.OverbookReason) != tt.reason || text(r.OverbookCostOwnership) != tt.owner {
				t.Errorf("overbooked %v, reason %s, cost ownership %s; want %v, %s, %s",
					r.Overbooked, text(r.OverbookReason), text(r.OverbookCostOwnership), tt.overbooked, tt.reason, tt.owner)
			}
		})
	}
}

// TestRestate: a forced override re-stated on a reservation that stays
// overbooked stores its reason, and its cost ownership when sent: a value
// replaces the stored one, null clears it (it was kept), absence keeps it.
// Without force_overbook, or on a reservation within stock, nothing changes.
func TestRestate(t *testing.T) {
	tests := []struct {
		name          string
		overbooked    bool
		ov            Override
		reason, owner string
	}{
		{"value", true, Override{Force: true, Reason: ptr("new"), CostOwnership: ptr("new_customer"), CostOwnershipSent: true}, "new", "new_customer"},
		{"null", true, Override{Force: true, Reason: ptr("new"), CostOwnershipSent: true}, "new", "null"},
		{"absent", true, Override{Force: true, Reason: ptr("new")}, "new", "absorbed"},
		{"not forced", true, Override{Reason: ptr("new"), CostOwnershipSent: true}, "old", "absorbed"},
		{"within stock", false, Override{Force: true, Reason: ptr("new"), CostOwnershipSent: true}, "old", "absorbed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Reservation{Overbooked: tt.overbooked, OverbookReason: ptr("old"), OverbookCostOwnership: ptr("absorbed")}
			restate(r, tt.ov)
			if text(r.OverbookReason) != tt.reason || text(r.OverbookCostOwnership) != tt.owner {
				t.Errorf("reason %s, cost ownership %s; want %s, %s",
					text(r.OverbookReason), text(r.OverbookCostOwnership), tt.reason, tt.owner)
			}
		})
	}
}

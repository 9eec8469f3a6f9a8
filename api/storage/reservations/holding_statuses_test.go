package reservations_test

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/stock"
)

// TestHoldingStatusesAreReservationStatuses: stock, which this package
// imports, names the holding statuses as text; they must be this package's
// reserved and checked_out, or a renamed status would hold no stock.
func TestHoldingStatusesAreReservationStatuses(t *testing.T) {
	if want := []string{reservations.StatusReserved, reservations.StatusCheckedOut}; !slices.Equal(stock.HoldingStatuses, want) {
		t.Errorf("stock.HoldingStatuses %v, want %v", stock.HoldingStatuses, want)
	}
}

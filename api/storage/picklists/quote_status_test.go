package picklists_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/quotes"
)

// TestQuoteApprovedIsTheQuotesStatus: the status this package cannot import
// from quotes (quotes imports it) is the one quotes writes.
func TestQuoteApprovedIsTheQuotesStatus(t *testing.T) {
	if picklists.QuoteApproved != quotes.StatusApproved {
		t.Errorf("picklists' quoteApproved %q, quotes.StatusApproved %q", picklists.QuoteApproved, quotes.StatusApproved)
	}
}

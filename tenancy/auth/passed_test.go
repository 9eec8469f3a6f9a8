package auth

import (
	"context"
	"slices"
	"testing"

	"github.com/eventapi/eventapi/tenancy"
)

// TestPassedRecordsTheChecksPassed: each check a principal passes is
// recorded once, in order; a failed one is not; without a recorder a check
// records nothing and still answers.
func TestPassedRecordsTheChecksPassed(t *testing.T) {
	p := &tenancy.Principal{Scopes: tenancy.NewScopeSet(tenancy.ClientsWrite, tenancy.JobsRead)}
	ctx, passedChecks := WithPassed(tenancy.WithPrincipal(context.Background(), p))
	checks := [][]tenancy.Scope{
		{tenancy.ClientsWrite},
		{tenancy.ClientsRead},                     // fails
		{tenancy.PickListsRead, tenancy.JobsRead}, // passes through jobs:read
		{tenancy.ClientsWrite},                    // again
	}
	for _, c := range checks {
		_ = Check(ctx, c...)
	}
	want := []tenancy.ScopeSet{tenancy.NewScopeSet(tenancy.ClientsWrite), tenancy.NewScopeSet(tenancy.PickListsRead, tenancy.JobsRead)}
	if got := passedChecks.Sets(); !slices.Equal(got, want) {
		t.Fatalf("passed %v, want %v", got, want)
	}
	if err := Check(tenancy.WithPrincipal(context.Background(), p), tenancy.ClientsWrite); err != nil {
		t.Fatalf("without a recorder: %v", err)
	}
}

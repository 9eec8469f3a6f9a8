package idempotency

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// executed runs checks (each any of its scopes) as a key holding scopes,
// bound to the key when forKey, and returns the record's Scopes and Key.
func executed(keyID uuid.UUID, scopes []tenancy.Scope, forKey bool, checks ...[]tenancy.Scope) record {
	p := &tenancy.Principal{KeyID: keyID, Scopes: tenancy.NewScopeSet(scopes...)}
	ctx, passed := auth.WithPassed(tenancy.WithPrincipal(context.Background(), p))
	for _, c := range checks {
		_ = auth.Check(ctx, c...)
	}
	if forKey {
		auth.ForThisKeyOnly(ctx)
	}
	return record{Scopes: checksOf(passed, p)}
}

func TestReplayable(t *testing.T) {
	type sc = []tenancy.Scope
	executor, other := uuid.New(), uuid.New()
	all := tenancy.AllScopes
	pickListRead := sc{tenancy.PickListsRead, tenancy.EventsRead, tenancy.JobsRead}
	cases := []struct {
		name     string
		rec      record
		key      uuid.UUID
		scopes   sc
		code     errs.Code // "": replayable
		required []string
	}{
		{"no scopes kept (before 2.7.1)", record{}, other, sc{tenancy.EventsRead}, "", nil},
		{"the route's check passed", executed(executor, all, false, sc{tenancy.ClientsWrite}),
			other, sc{tenancy.ClientsWrite}, "", nil},
		{"the route's check failed", executed(executor, all, false, sc{tenancy.ClientsWrite}),
			other, sc{tenancy.EventsRead}, errs.InsufficientScope, []string{"clients:write"}},
		{"a check of several keeps the first scope the executing key held",
			executed(executor, sc{tenancy.PickListsWrite, tenancy.JobsRead}, false, sc{tenancy.PickListsWrite}, pickListRead),
			other, sc{tenancy.PickListsWrite, tenancy.JobsRead}, "", nil},
		{"another scope of that check is not enough (stricter, readable by older pods)",
			executed(executor, sc{tenancy.PickListsWrite, tenancy.JobsRead}, false, sc{tenancy.PickListsWrite}, pickListRead),
			other, sc{tenancy.PickListsWrite, tenancy.EventsRead}, errs.InsufficientScope, []string{"jobs:read"}},
		{"a failed check is not kept", executed(executor, sc{tenancy.ClientsWrite}, false, sc{tenancy.ClientsWrite}, sc{tenancy.ClientsRead}),
			other, sc{tenancy.ClientsWrite}, "", nil},
		{"no check passed keeps the key's scopes", executed(executor, sc{tenancy.ClientsRead, tenancy.ClientsWrite}, false),
			other, sc{tenancy.ClientsWrite}, errs.InsufficientScope, []string{"clients:read"}},
		{"an answer for its key alone replays to it", executed(executor, all, true, sc{tenancy.WebhooksWrite}),
			executor, all, "", nil},
		{"an answer for its key alone is refused to another key with every scope", executed(executor, all, true, sc{tenancy.WebhooksWrite}),
			other, all, errs.IdempotencyKeyMismatch, nil},
		{"scopes are judged before the key", executed(executor, all, true, sc{tenancy.WebhooksWrite}),
			other, sc{tenancy.EventsRead}, errs.InsufficientScope, []string{"webhooks:write"}},
		{"an older pod's record of the key's scopes needs each of them", record{Scopes: []string{"clients:read", "clients:write"}},
			other, sc{tenancy.ClientsWrite}, errs.InsufficientScope, []string{"clients:read"}},
		{"an unknown scope passes no key", record{Scopes: []string{"later:read"}}, other, all, errs.InsufficientScope, []string{"later:read"}},
		{"an answer not kept is refused to the executing key", record{Status: 200, Scopes: []string{"pick_lists:write", notKeptPrefix + "5000000"}},
			executor, all, errs.IdempotencyKeyMismatch, nil},
		{"an answer not kept: scopes are judged first", record{Status: 200, Scopes: []string{"pick_lists:write", notKeptPrefix + "5000000"}},
			other, sc{tenancy.EventsRead}, errs.InsufficientScope, []string{"pick_lists:write"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := replayable(&tenancy.Principal{KeyID: tc.key, Scopes: tenancy.NewScopeSet(tc.scopes...)}, tc.rec)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := err.(*errs.Error)
			if !ok || e.Code != tc.code {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
			if tc.required == nil {
				return
			}
			got, _ := e.Details.(map[string]any)["required"].([]string)
			if !slices.Equal(got, tc.required) {
				t.Fatalf("required %v, want %v", got, tc.required)
			}
		})
	}
}

// TestKeptBody: an answer up to MaxKeptAnswer is kept whole; a larger one
// is not kept, and the scopes say so with its size.
func TestKeptBody(t *testing.T) {
	scopes := []string{"pick_lists:write"}
	for _, tc := range []struct {
		size       int
		kept       bool
		wantScopes []string
	}{
		{0, true, scopes},
		{MaxKeptAnswer, true, scopes},
		{MaxKeptAnswer + 1, false, []string{"pick_lists:write", notKeptPrefix + "4194305"}},
	} {
		body := make([]byte, tc.size)
		kept, got := keptBody(body, slices.Clone(scopes))
		if (len(kept) == tc.size) != tc.kept || (!tc.kept && kept != nil) || !slices.Equal(got, tc.wantScopes) {
			t.Errorf("%d bytes: kept %d, scopes %v; want kept %v, scopes %v", tc.size, len(kept), got, tc.kept, tc.wantScopes)
		}
	}
}

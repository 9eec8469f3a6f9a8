package idempotency

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func TestReplayable(t *testing.T) {
	set := tenancy.NewScopeSet
	pickListRead := set(tenancy.PickListsRead, tenancy.EventsRead, tenancy.JobsRead)
	cases := []struct {
		name     string
		checks   []string
		key      tenancy.ScopeSet
		required []string // nil: replayable
	}{
		{"no checks kept (before 2.7.1)", nil, set(tenancy.EventsRead), nil},
		{"the route's check passed", checksOf([]tenancy.ScopeSet{set(tenancy.ClientsWrite)}, set(tenancy.AllScopes...)), set(tenancy.ClientsWrite), nil},
		{"the route's check failed", checksOf([]tenancy.ScopeSet{set(tenancy.ClientsWrite)}, set(tenancy.AllScopes...)), set(tenancy.EventsRead),
			[]string{"clients:write"}},
		{"one of a check's scopes passes it",
			checksOf([]tenancy.ScopeSet{set(tenancy.PickListsWrite), pickListRead}, set(tenancy.AllScopes...)), set(tenancy.PickListsWrite, tenancy.JobsRead), nil},
		{"a check of several, failed, names them all",
			checksOf([]tenancy.ScopeSet{set(tenancy.PickListsWrite), pickListRead}, set(tenancy.AllScopes...)), set(tenancy.PickListsWrite),
			[]string{"events:read", "pick_lists:read", "jobs:read"}},
		{"every failed check is named once",
			checksOf([]tenancy.ScopeSet{set(tenancy.EquipmentReservationsWrite), set(tenancy.EquipmentReservationsRead)}, set(tenancy.AllScopes...)),
			set(tenancy.EventsRead), []string{"equipment_reservations:write", "equipment_reservations:read"}},
		{"a record of a key's scopes (before 2.11.1) needs each of them",
			[]string{"clients:read", "clients:write"}, set(tenancy.ClientsWrite), []string{"clients:read"}},
		{"an execution that passed no check keeps the key's scopes", checksOf(nil, set(tenancy.ClientsRead, tenancy.ClientsWrite)),
			set(tenancy.ClientsWrite), []string{"clients:read"}},
		{"an unknown scope passes no key", []string{"later:read"}, set(tenancy.AllScopes...), []string{"later:read"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := replayable(tc.key, record{Scopes: tc.checks})
			if tc.required == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := err.(*errs.Error)
			if !ok || e.Code != errs.InsufficientScope {
				t.Fatalf("err = %v, want insufficient_scope", err)
			}
			got, _ := e.Details.(map[string]any)["required"].([]string)
			if !slices.Equal(sorted(got), sorted(tc.required)) {
				t.Fatalf("required %v, want %v", got, tc.required)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

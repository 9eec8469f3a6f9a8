// Package tenancy owns organizations, their API keys and scopes, and the
// authenticated principal: who is calling, for which (effective) organization,
// with which scopes. Its Fiber middleware, in tenancy/auth, turns a bearer
// key into a principal in the request context; everything downstream reads the organization from there
// and never from the path, query or body.
package tenancy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eventapi/eventapi/platform/errs"
)

// Scope is a permission carried by an API key.
type Scope string

// The v2 scopes (19) and the legacy scopes still accepted.
const (
	EventsRead                 Scope = "events:read"
	EventsWrite                Scope = "events:write"
	ClientsRead                Scope = "clients:read"
	ClientsWrite               Scope = "clients:write"
	EquipmentRead              Scope = "equipment:read"
	EquipmentWrite             Scope = "equipment:write"
	EquipmentReservationsRead  Scope = "equipment_reservations:read"
	EquipmentReservationsWrite Scope = "equipment_reservations:write"
	QuotesRead                 Scope = "quotes:read"
	QuotesWrite                Scope = "quotes:write"
	InvoicesRead               Scope = "invoices:read"
	InvoicesWrite              Scope = "invoices:write"
	CrewMembersRead            Scope = "crew_members:read"
	CrewMembersWrite           Scope = "crew_members:write"
	PickListsRead              Scope = "pick_lists:read"
	PickListsWrite             Scope = "pick_lists:write"
	// RequestLogsRead reads the organization's request log.
	RequestLogsRead Scope = "request_logs:read"
	// WebhooksRead lists webhook endpoints and their deliveries.
	WebhooksRead Scope = "webhooks:read"
	// WebhooksWrite registers, changes and removes webhook endpoints and
	// retries deliveries.
	WebhooksWrite Scope = "webhooks:write"

	JobsRead Scope = "jobs:read"
	CrewRead Scope = "crew:read"
)

// AllScopes lists every grantable scope, v2 first, then legacy.
var AllScopes = []Scope{
	EventsRead, EventsWrite, ClientsRead, ClientsWrite, EquipmentRead, EquipmentWrite,
	EquipmentReservationsRead, EquipmentReservationsWrite, QuotesRead, QuotesWrite,
	InvoicesRead, InvoicesWrite, CrewMembersRead, CrewMembersWrite, PickListsRead, PickListsWrite,
	RequestLogsRead, WebhooksRead, WebhooksWrite,
	JobsRead, CrewRead,
}

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return slices.Contains(AllScopes, s) }

// CheckScopes is the rule for a key's scope list, wherever the list comes
// from (the CLI's --scopes through ParseScopes, an ApiKey's spec.scopes,
// CreateKey and SetKeyScopes): at least one scope, each of AllScopes, and a
// scope named twice counts once. It returns the list with its duplicates
// collapsed (first occurrences, in order), or a 422 on scopes.
func CheckScopes(scopes []Scope) ([]Scope, error) {
	if len(scopes) == 0 {
		return nil, errs.InvalidField("scopes", "at least one scope is required")
	}
	out := make([]Scope, 0, len(scopes))
	for _, s := range scopes {
		if !s.Valid() {
			return nil, errs.InvalidField("scopes", "unknown scope "+strconv.Quote(string(s))+" (known: "+JoinScopes(AllScopes)+")")
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// ParseScopes parses a comma-separated list, or "all" for every scope, and
// checks it (CheckScopes).
func ParseScopes(list string) ([]Scope, error) {
	if strings.TrimSpace(list) == "all" {
		return slices.Clone(AllScopes), nil
	}
	var ss []Scope
	for _, part := range strings.Split(list, ",") {
		s := Scope(strings.TrimSpace(part))
		if s == "" {
			// "a,,b" or "a," is a list with a scope missing, most
			// likely an empty variable in a script: refuse it.
			return nil, fmt.Errorf("an empty scope in the list %q", list)
		}
		if s == "all" {
			return nil, fmt.Errorf("all stands alone: give all, or a list of scopes")
		}
		ss = append(ss, s)
	}
	out, err := CheckScopes(ss)
	if err != nil {
		return nil, errors.New(errs.Issues(err)[0].Issue + ", or give all")
	}
	return out, nil
}

// JoinScopes renders scopes as a comma-separated list.
func JoinScopes(ss []Scope) string { return strings.Join(ScopeNames(ss), ",") }

// ScopeNames returns the names of scopes, in order.
func ScopeNames(ss []Scope) []string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = string(s)
	}
	return names
}

// ScopeSet is a set of scopes with O(1) membership.
type ScopeSet uint32

func scopeBit(s Scope) ScopeSet {
	i := slices.Index(AllScopes, s)
	if i < 0 {
		return 0
	}
	return 1 << uint(i)
}

// NewScopeSet builds a set from scopes; unknown ones are ignored.
func NewScopeSet(ss ...Scope) ScopeSet {
	var set ScopeSet
	for _, s := range ss {
		set |= scopeBit(s)
	}
	return set
}

// Has reports whether the set holds s.
func (set ScopeSet) Has(s Scope) bool { b := scopeBit(s); return b != 0 && set&b == b }

// HasAny reports whether the set holds any of ss.
func (set ScopeSet) HasAny(ss ...Scope) bool { return set&NewScopeSet(ss...) != 0 }

// List returns the scopes in the set in canonical order.
func (set ScopeSet) List() []Scope {
	out := []Scope{}
	for _, s := range AllScopes {
		if set.Has(s) {
			out = append(out, s)
		}
	}
	return out
}

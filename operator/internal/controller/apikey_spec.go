package controller

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// defaultGracePeriod applies when spec.rotationGracePeriod is unset (the CRD
// defaults it to the same value).
const defaultGracePeriod = 5 * time.Minute

// keySpec is an ApiKey spec checked and converted to tenancy's types.
type keySpec struct {
	org       uuid.UUID
	name      string
	scopes    []tenancy.Scope
	mode      apikey.Mode
	expiresAt *time.Time
	rotation  string
	grace     time.Duration
}

// parseKeySpec validates the spec beyond what the CRD schema enforces (an
// older CRD, or an operator newer than its CRD, must not slip bad values
// through): scopes by tenancy.CheckScopes (at least one, each known, a
// duplicate collapsed), and the name the key would be stored under against
// tenancy's name rule, so that a name CreateKey would refuse (a control
// character) is InvalidSpec before anything is issued. The pending previous key is still revoked on time
// (settleInvalid).
func parseKeySpec(ak *v1alpha1.ApiKey) (keySpec, *failure) {
	s := ak.Spec
	org, err := uuid.Parse(s.OrganizationID)
	if err != nil {
		return keySpec{}, invalid("spec.organizationId must be a uuid")
	}
	ks := keySpec{org: org, name: displayName(ak), mode: apikey.Mode(s.Mode), rotation: s.RotationToken, grace: defaultGracePeriod}
	if _, err := tenancy.CleanName(keyName(ak, ks)); err != nil {
		return keySpec{}, invalid("spec." + errs.As(err).Message) // "spec.name: must not ..."
	}
	if ks.mode == "" {
		ks.mode = apikey.Live
	}
	if ks.mode != apikey.Live && ks.mode != apikey.Test {
		return keySpec{}, invalid("spec.mode must be live or test")
	}
	scopes := make([]tenancy.Scope, len(s.Scopes))
	for i, raw := range s.Scopes {
		scopes[i] = tenancy.Scope(raw)
	}
	if ks.scopes, err = tenancy.CheckScopes(scopes); err != nil {
		return keySpec{}, invalid("spec." + errs.As(err).Message) // "spec.scopes: unknown scope ..."
	}
	if s.ExpiresAt != nil {
		t := s.ExpiresAt.UTC().Truncate(time.Second)
		ks.expiresAt = &t
	}
	if s.RotationGracePeriod != nil {
		if s.RotationGracePeriod.Duration < 0 {
			return keySpec{}, invalid("spec.rotationGracePeriod must not be negative")
		}
		ks.grace = s.RotationGracePeriod.Duration
	}
	return ks, nil
}

// displayName is the key's name without its marker: spec.name trimmed, or
// the object's name when that is blank, cut to the characters the marker
// leaves of tenancy.MaxNameLength. A stored name is trimmed, so a name that
// trimmed to nothing would have lost the marker's leading space, and no
// revocation, which finds keys by their marker, would ever have matched it.
func displayName(ak *v1alpha1.ApiKey) string {
	name := strings.TrimSpace(ak.Spec.Name)
	if name == "" {
		name = ak.Name
	}
	budget := tenancy.MaxNameLength - utf8.RuneCountInString(keyMarker(ak))
	if utf8.RuneCountInString(name) > budget {
		name = strings.TrimSpace(string([]rune(name)[:budget]))
	}
	return name
}

// sameScopes reports whether a stored key has exactly the wanted scopes, in
// any order.
func sameScopes(stored []string, want []tenancy.Scope) bool {
	return tenancy.NewScopeSet(toScopes(stored)...) == tenancy.NewScopeSet(want...) && len(stored) == len(want)
}

func toScopes(ss []string) []tenancy.Scope {
	out := make([]tenancy.Scope, len(ss))
	for i, s := range ss {
		out[i] = tenancy.Scope(s)
	}
	return out
}

// sameExpiry compares a stored expiry with the wanted one at second precision
// (metav1.Time carries seconds).
func sameExpiry(stored, want *time.Time) bool {
	if stored == nil || want == nil {
		return stored == nil && want == nil
	}
	return stored.UTC().Truncate(time.Second).Equal(*want)
}

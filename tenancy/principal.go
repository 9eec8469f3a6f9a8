package tenancy

import (
	"context"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/tenancy/apikey"
)

// Principal is the authenticated caller of one request. The Authenticator
// hands the same *Principal to every request of a key while its cache entry
// lives, and others keep pointers into it (the request log's records): it
// is read-only once made.
type Principal struct {
	KeyID uuid.UUID
	// KeyPrefix is the key's display prefix (never the secret).
	KeyPrefix string
	// OrganizationID is the effective organization: every query is scoped to
	// it. For a test key of an organization with a sandbox, it is the sandbox.
	OrganizationID uuid.UUID
	// HomeOrganizationID owns the key.
	HomeOrganizationID uuid.UUID
	Scopes             ScopeSet
	Mode               apikey.Mode
	// Sandbox is true for test keys: what they write is marked demo.
	Sandbox bool
	// RateLimit is the organization's v2 limit override (0: the default).
	RateLimit      int
	StockGuardMode StockGuardMode
}

type principalKey struct{}

// WithPrincipal stores p in ctx.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal stored in ctx.
func FromContext(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}

// MustFromContext returns the principal or panics: only for handlers behind
// the auth middleware, where a missing principal is a wiring bug.
func MustFromContext(ctx context.Context) *Principal {
	p, ok := FromContext(ctx)
	if !ok {
		panic("tenancy: no principal in context; route is not behind the auth middleware")
	}
	return p
}

// OrgID returns the effective organization of ctx's principal.
func OrgID(ctx context.Context) OrganizationID {
	return OrganizationID{MustFromContext(ctx).OrganizationID}
}

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
	// Sandbox says the key acts in a sandbox (InSandbox): what it writes
	// is marked demo, and /health says "sandbox": true.
	Sandbox bool
	// RateLimit is the organization's v2 limit override (0: the default).
	RateLimit      int
	StockGuardMode StockGuardMode
}

// InSandbox is the demo rule, stated once: a key acts in a sandbox, and
// what it writes is demo data, when it is a test key or its organization
// is a sandbox organization (docs/decisions.md, "Sandbox"). So a live key
// made on a sandbox writes demo records, as everything else there is, and
// a test key of an organization without a sandbox writes demo records into
// the live organization.
func InSandbox(mode apikey.Mode, orgIsSandbox bool) bool {
	return mode == apikey.Test || orgIsSandbox
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

type presentedKey struct{}

// WithPresentedKey stores, for a request that carries no principal because
// authentication refused its key or could not check it (PostgreSQL
// unreachable), the display prefix of that key, which must be well-formed
// (apikey.Parse): the logs then say whose request it was without an
// organization (docs/observability.md). prefix must not point into a buffer
// the server reuses.
func WithPresentedKey(ctx context.Context, prefix string) context.Context {
	return context.WithValue(ctx, presentedKey{}, prefix)
}

// RefusedKey is the key of a request refused because the key was revoked
// or has expired: its hash matched a stored key, so whose key it is is
// known. The request is logged under the organization the key acted on
// (OrganizationID, as its principal had it) with its id, so that the
// organization sees a key it revoked still being tried, and from where
// (docs/observability.md, "What is logged"); nobody else does.
type RefusedKey struct {
	OrganizationID uuid.UUID
	KeyID          uuid.UUID
	KeyPrefix      string
}

type refusedKey struct{}

// WithRefusedKey stores k, the key ctx's request was refused for.
func WithRefusedKey(ctx context.Context, k *RefusedKey) context.Context {
	return context.WithValue(ctx, refusedKey{}, k)
}

// RefusedKeyOf returns the key WithRefusedKey stored in ctx.
func RefusedKeyOf(ctx context.Context) (*RefusedKey, bool) {
	k, ok := ctx.Value(refusedKey{}).(*RefusedKey)
	return k, ok && k != nil
}

// PresentedKey returns the prefix WithPresentedKey stored in ctx.
func PresentedKey(ctx context.Context) (string, bool) {
	p, ok := ctx.Value(presentedKey{}).(string)
	return p, ok
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

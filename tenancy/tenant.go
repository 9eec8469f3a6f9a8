package tenancy

import (
	"context"

	"github.com/google/uuid"
)

// OrganizationID identifies an organization. It is a type of its own, not a
// bare uuid.UUID, so that an organization id and a record id cannot be
// swapped in a call without a compile error. It embeds the uuid for
// formatting, JSON and database arguments.
type OrganizationID struct{ uuid.UUID }

// Tenant is the organization a request or a seeding run acts for, with what
// every write needs to know about it. Store functions that write take it;
// those that only read or change existing records take its Org.
type Tenant struct {
	Org OrganizationID
	// Demo marks what is written as demo data (sandbox keys, demo seeding).
	Demo bool
	// StockGuard is the organization's rule for reservations beyond stock.
	StockGuard StockGuardMode
}

// Tenant returns the tenant the principal acts for: its effective
// organization, demo flag and settings.
func (p *Principal) Tenant() Tenant {
	return Tenant{Org: OrganizationID{p.OrganizationID}, Demo: p.Sandbox, StockGuard: p.StockGuardMode}
}

// TenantOf returns the tenant of ctx's principal; like MustFromContext it is
// only for code behind the auth middleware.
func TenantOf(ctx context.Context) Tenant { return MustFromContext(ctx).Tenant() }

// OrgID is the organization's id as the store functions take it.
func (o *Organization) OrgID() OrganizationID { return OrganizationID{o.ID} }

// WithStockGuard returns t acting under mode instead of its own stock guard
// (demo seeding books in warn mode whatever the organization's setting).
func (t Tenant) WithStockGuard(mode StockGuardMode) Tenant {
	t.StockGuard = mode
	return t
}

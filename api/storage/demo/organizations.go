package demo

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/tenancy"
)

// Lock takes the transaction-scoped advisory lock that serializes the CLI's
// demo runs, so that two runs at once do not both create the demo
// organization. It is held until tx ends.
func Lock(ctx context.Context, tx bun.Tx) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('eventapi demo'))")
	return err
}

// FindOrganization returns the oldest organization named name that is not
// itself a sandbox and that demo made (listed in demo_organizations, by
// MarkOrganization), or nil when there is none. An organization of that
// name that demo did not make is refused, not reused: demo would give it a
// seeded sandbox, which its test keys then reach instead of the
// organization itself, keys with every scope, and revoke its keys named as
// demo's. (The names of its keys told before, so an operator's key named
// "demo live key" handed the organization over.)
func FindOrganization(ctx context.Context, tx bun.Tx, name string) (*tenancy.Organization, error) {
	orgs, err := tenancy.ListOrganizations(ctx, tx)
	if err != nil {
		return nil, err
	}
	var made []uuid.UUID
	if err := tx.NewRaw("SELECT organization_id FROM demo_organizations").Scan(ctx, &made); err != nil {
		return nil, err
	}
	taken := false
	for i := range orgs {
		if orgs[i].Name != name || orgs[i].SandboxOf != nil {
			continue
		}
		if slices.Contains(made, orgs[i].ID) {
			return &orgs[i], nil
		}
		taken = true
	}
	if taken {
		return nil, fmt.Errorf("an organization named %q exists that eventapi demo did not make; give --name another name", name)
	}
	return nil, nil
}

// MarkOrganization records that demo made org, for FindOrganization.
func MarkOrganization(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO demo_organizations (organization_id) VALUES (?)", org)
	return err
}

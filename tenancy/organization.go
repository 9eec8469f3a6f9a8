package tenancy

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
)

// StockGuardMode decides what happens when a reservation exceeds stock.
type StockGuardMode string

// Stock guard modes.
const (
	StockGuardBlock StockGuardMode = "block"
	StockGuardWarn  StockGuardMode = "warn"
	StockGuardOff   StockGuardMode = "off"
)

// Valid reports whether m is a known mode.
func (m StockGuardMode) Valid() bool {
	return m == StockGuardBlock || m == StockGuardWarn || m == StockGuardOff
}

// Organization is a tenant.
type Organization struct {
	bun.BaseModel `bun:"table:organizations,alias:o"`

	ID             uuid.UUID      `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	Name           string         `bun:"name" json:"name"`
	StockGuardMode StockGuardMode `bun:"stock_guard_mode,default:'block'" json:"stock_guard_mode"`
	// RateLimit overrides the default v2 limit per window when set.
	RateLimit *int       `bun:"rate_limit_per_window" json:"rate_limit"`
	SandboxOf *uuid.UUID `bun:"sandbox_of,type:uuid" json:"sandbox_of"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt time.Time  `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// CreateOrganization inserts an organization. With sandboxOf set it becomes
// the sandbox of that parent (one per parent): the parent's test keys are then
// routed to it.
func CreateOrganization(ctx context.Context, db bun.IDB, name string, sandboxOf *uuid.UUID) (*Organization, error) {
	name, err := cleanName(name)
	if err != nil {
		return nil, err
	}
	if sandboxOf != nil {
		parent, err := GetOrganization(ctx, db, *sandboxOf)
		if err != nil {
			return nil, err
		}
		if parent.SandboxOf != nil {
			return nil, errs.InvalidField("sandbox_of", "a sandbox organization cannot have a sandbox")
		}
	}
	org := &Organization{Name: name, SandboxOf: sandboxOf, StockGuardMode: StockGuardBlock}
	if _, err := db.NewInsert().Model(org).Returning("*").Exec(ctx); err != nil {
		if err = database.Error(err); sandboxOf != nil && errs.Is(err, errs.DuplicateRecord) {
			return nil, errs.New(errs.DuplicateRecord, "organization "+sandboxOf.String()+" already has a sandbox").
				WithDetails(map[string]any{"field": "sandbox_of"})
		}
		return nil, err
	}
	return org, nil
}

// GetOrganization loads one organization.
func GetOrganization(ctx context.Context, db bun.IDB, id uuid.UUID) (*Organization, error) {
	org := new(Organization)
	if err := db.NewSelect().Model(org).Where("id = ?", id).Scan(ctx); err != nil {
		if errs.Is(database.Error(err), errs.NotFound) {
			return nil, errs.NotFoundOf("organization")
		}
		return nil, database.Error(err)
	}
	return org, nil
}

// SandboxOrganization returns the sandbox of parent, or nil when it has none.
func SandboxOrganization(ctx context.Context, db bun.IDB, parent uuid.UUID) (*Organization, error) {
	org := new(Organization)
	err := db.NewSelect().Model(org).Where("sandbox_of = ?", parent).Scan(ctx)
	if err != nil {
		if errs.Is(database.Error(err), errs.NotFound) {
			return nil, nil
		}
		return nil, database.Error(err)
	}
	return org, nil
}

// ListOrganizations returns every organization, oldest first.
func ListOrganizations(ctx context.Context, db bun.IDB) ([]Organization, error) {
	var orgs []Organization
	if err := db.NewSelect().Model(&orgs).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, database.Error(err)
	}
	return orgs, nil
}

// OrganizationUpdate holds the settings to change; nil leaves one unchanged.
type OrganizationUpdate struct {
	Name           *string
	StockGuardMode *StockGuardMode
	// RateLimit of 0 clears the override.
	RateLimit *int
}

// MaxRateLimit is the largest per-organization limit (the column is an
// integer).
const MaxRateLimit = math.MaxInt32

// UpdateOrganization changes an organization's settings.
func UpdateOrganization(ctx context.Context, db bun.IDB, id uuid.UUID, u OrganizationUpdate) (*Organization, error) {
	q := db.NewUpdate().Model((*Organization)(nil)).Where("id = ?", id).Set("updated_at = clock_timestamp()")
	if u.Name != nil {
		n, err := cleanName(*u.Name)
		if err != nil {
			return nil, err
		}
		q = q.Set("name = ?", n)
	}
	if u.StockGuardMode != nil {
		if !u.StockGuardMode.Valid() {
			return nil, errs.InvalidField("stock_guard_mode", "must be one of block, warn, off")
		}
		q = q.Set("stock_guard_mode = ?", *u.StockGuardMode)
	}
	if u.RateLimit != nil {
		switch {
		case *u.RateLimit < 0 || *u.RateLimit > MaxRateLimit:
			return nil, errs.InvalidField("rate_limit", fmt.Sprintf("must be an integer from 1 to %d, or 0 to use the default", MaxRateLimit))
		case *u.RateLimit == 0:
			q = q.Set("rate_limit_per_window = NULL")
		default:
			q = q.Set("rate_limit_per_window = ?", *u.RateLimit)
		}
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errs.NotFoundOf("organization")
	}
	return GetOrganization(ctx, db, id)
}

// feedBatch is the most changes one statement of DeleteOrganization deletes
// before its transaction (a variable for the tests).
var feedBatch = 1000

// doomedFeed names the organization of the first argument and its sandbox:
// the organizations whose feeds DeleteOrganization deletes.
const doomedFeed = `WITH RECURSIVE doomed AS (
	SELECT id FROM organizations WHERE id = ?
	UNION ALL SELECT o.id FROM organizations o JOIN doomed d ON o.sandbox_of = d.id)`

// DeleteOrganization removes an organization with its change feed and, by
// cascade, all its other data. The cascade records no changes (the outbox
// is switched off for the transaction; docs/changes.md).
//
// The feed has no foreign key to its organization (it would cost every
// write a lock of the organization's row), so the feeds of the
// organization and of its sandbox are deleted here: first in batches of
// feedBatch changes, each a statement of its own, and then, in the
// transaction that deletes the organization, what was written meanwhile.
// A busy organization keeps 30 days of changes, each taking its webhook
// deliveries with it: deleted in the one transaction, a million of them
// took most of the 15 s statement timeout, and a deletion that timed out
// would fail the same way every time. Each batch moves the retention marks
// as the purge does, so that should the organization's deletion then fail,
// a reader of its feed is told its cursor expired (410) rather than
// skipping what went.
func DeleteOrganization(ctx context.Context, db bun.IDB, id uuid.UUID) error {
	for {
		var n int64
		err := db.NewRaw(`/* an organization deleted: its feed in batches */ `+doomedFeed+`, gone AS (
				DELETE FROM changes WHERE seq IN (
					SELECT seq FROM changes WHERE organization_id IN (SELECT id FROM doomed) LIMIT ?)
				RETURNING organization_id, position, seq
			), `+database.FeedMarksCTE+`
			SELECT count(*) FROM gone`, id, feedBatch).Scan(ctx, &n)
		if err != nil {
			return database.Error(err)
		}
		if n < int64(feedBatch) {
			break
		}
	}
	return database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT set_config('eventapi.outbox', 'off', true)"); err != nil {
			return database.Error(err)
		}
		if _, err := tx.NewRaw(doomedFeed+` DELETE FROM changes WHERE organization_id IN (SELECT id FROM doomed)`, id).Exec(ctx); err != nil {
			return database.Error(err)
		}
		res, err := tx.NewDelete().Model((*Organization)(nil)).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return database.Error(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundOf("organization")
		}
		return nil
	})
}

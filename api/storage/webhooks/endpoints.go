package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// NewEndpoint is a validated registration.
type NewEndpoint struct {
	URL           string
	Description   *string
	EnabledEvents []string
	// CreatedByKeyID is the key registering it; uuid.Nil records none.
	CreatedByKeyID uuid.UUID
}

// CreateEndpoint registers an endpoint of t's organization, marked demo as
// t is, with a new signing secret, stored sealed by s under the endpoint's
// id, and returns it with the secret in the clear (the only time it is
// shown).
func CreateEndpoint(ctx context.Context, db bun.IDB, t tenancy.Tenant, s *seal.Sealer, in NewEndpoint) (*CreatedEndpoint, error) {
	id := uuid.New()
	secret, sealed, err := newSealedSecret(s, id)
	if err != nil {
		return nil, err
	}
	org := t.Org
	e := &Endpoint{ID: id, OrganizationID: org.UUID, URL: in.URL, Description: in.Description,
		EnabledEvents: in.EnabledEvents, Status: Enabled, SealedSecret: sealed, Demo: t.Demo}
	if in.CreatedByKeyID != uuid.Nil {
		e.CreatedByKeyID = &in.CreatedByKeyID
	}
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := roomForEndpoint(ctx, tx, org); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(e).Returning("*").Exec(ctx)
		return database.Error(err)
	})
	if err != nil {
		return nil, err
	}
	return &CreatedEndpoint{Endpoint: *e, Secret: secret}, nil
}

// MaxEndpoints is the most endpoints one organization may register (a
// sandbox is an organization of its own). Every endpoint is a cursor that
// the fleet's fan-out pass follows and a queue the workers serve, so one
// organization must not be able to add them without bound.
const MaxEndpoints = 25

// ErrTooManyEndpoints refuses a registration past MaxEndpoints.
var ErrTooManyEndpoints = errs.InvalidField("body", fmt.Sprintf(
	"the organization has %d webhook endpoints, the most it may have; delete one, or subscribe an existing one to more event types", MaxEndpoints))

// roomForEndpoint refuses a registration when org is at MaxEndpoints. It
// takes a transaction-scoped advisory lock per organization first, so two
// registrations racing for the last place are counted one after the other.
func roomForEndpoint(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID) error {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "webhook_endpoints:"+org.String()).Exec(ctx); err != nil {
		return database.Error(err)
	}
	n, err := tx.NewSelect().Model((*Endpoint)(nil)).Where("organization_id = ?", org).Count(ctx)
	if err != nil {
		return database.Error(err)
	}
	if n >= MaxEndpoints {
		return ErrTooManyEndpoints
	}
	return nil
}

// GetEndpoint loads the endpoint id of org.
func GetEndpoint(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Endpoint, error) {
	e, err := storage.Get[Endpoint](ctx, db, org, id, EndpointKind)
	if err != nil {
		return nil, err
	}
	e.hideExpired(time.Now())
	return e, nil
}

// ListEndpoints returns one page of org's endpoints, oldest first.
func ListEndpoints(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[Endpoint], error) {
	page, err := storage.List[Endpoint](ctx, db, org, p)
	now := time.Now()
	for i := range page.Items {
		page.Items[i].hideExpired(now)
	}
	return page, err
}

// EndpointsOfKey returns the endpoints key registered: in home, the
// organization that owns it, or in home's sandbox, where its test key's
// requests act; oldest first, at most MaxEndpoints in each, so one read.
func EndpointsOfKey(ctx context.Context, db bun.IDB, home tenancy.OrganizationID, key uuid.UUID) ([]Endpoint, error) {
	var es []Endpoint
	err := db.NewSelect().Model(&es).
		Where("organization_id IN (SELECT o.id FROM organizations AS o WHERE o.id = ? OR o.sandbox_of = ?)", home.UUID, home.UUID).
		Where("created_by_key_id = ?", key).Order("created_at", "id").Scan(ctx)
	return es, database.Error(err)
}

// EndpointPatch holds the fields a PATCH sets (nil: unchanged).
type EndpointPatch struct {
	URL            *string
	Description    *string
	DescriptionSet bool
	EnabledEvents  []string
	Status         *string
}

// UpdateEndpoint applies p to the endpoint id of org. Setting status
// enabled clears failing_since and, on a disabled endpoint, starts a fresh
// run: the database's trigger moves its enabled_at, which gives every
// pending delivery a fresh retry window, due at once (the claim's rule,
// ClaimDue), and makes the failure of an attempt claimed before no longer
// count against it (Complete). The re-enable itself rewrites at most
// FreshWindowBatch deliveries (freshWindow), whatever the backlog.
//
// allow is given the subscription the endpoint will have (p's, else the
// stored one) and refuses the change with an error; it runs with the row
// locked, so no concurrent change of the subscription slips between the
// check and the write.
func UpdateEndpoint(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, p EndpointPatch,
	allow func(enabledEvents []string) error) (*Endpoint, error) {
	var out *Endpoint
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		// The row is locked first: a worker that is disabling the endpoint
		// (a delivery given up) commits before or after this, never
		// between the status read here and the write.
		var status string
		var stored []string
		err := tx.NewSelect().Model((*Endpoint)(nil)).Column("status", "enabled_events").
			Where("organization_id = ? AND id = ?", org, id).For("UPDATE").Scan(ctx, &status, pgdialect.Array(&stored))
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundOf(EndpointKind)
		}
		if err != nil {
			return database.Error(err)
		}
		events := p.EnabledEvents
		if events == nil {
			events = stored
		}
		if err := allow(events); err != nil {
			return err
		}
		reenabled := p.Status != nil && *p.Status == Enabled && status == Disabled
		e, err := update(ctx, tx, org, id, p, reenabled)
		if err != nil {
			return err
		}
		if reenabled {
			if err := freshWindow(ctx, tx, org, id); err != nil {
				return err
			}
		}
		out = e
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.hideExpired(time.Now())
	return out, nil
}

// update writes p to the endpoint id of org; reenabled, when p enables an
// endpoint that was disabled, also ends its run of failures. Sending
// status enabled to an endpoint already enabled changes nothing: clearing
// failing_since there, without the fresh windows a re-enable gives, made a
// failing endpoint look healthy until a delivery whose old window ran out
// disabled it moments later.
func update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, p EndpointPatch, reenabled bool) (*Endpoint, error) {
	var ch storage.Changes
	ch.SetIf(p.URL != nil, "url", p.URL)
	ch.SetIf(p.DescriptionSet, "description", p.Description)
	ch.SetIf(p.EnabledEvents != nil, "enabled_events", pgdialect.Array(p.EnabledEvents))
	if p.Status != nil {
		ch.Set("status", *p.Status)
	}
	if reenabled {
		ch.Set("failing_since", nil)
	}
	return storage.Update[Endpoint](ctx, db, org, id, EndpointKind, ch)
}

// FreshWindowBatch is the most pending deliveries a re-enable rewrites in
// its own transaction (freshWindow).
const FreshWindowBatch = 500

// freshWindow writes the fresh window of a re-enabled endpoint into at most
// FreshWindowBatch of its pending deliveries, those due latest first: their
// window ran on while the endpoint was disabled, and one more failure would
// otherwise fail them for good and disable the endpoint at once
// (docs/webhooks.md). It runs after the endpoint's update, whose trigger
// moved enabled_at, so the rows it writes are no longer stale.
//
// The fresh window of every other pending delivery needs no write here: a
// pending delivery last written before enabled_at is stale, which the
// claim takes as due at once, and claiming it clears its window
// (first_failed_at, window_attempts, unprepared_since: trigger
// webhook_delivery_claimed, migration 20261205020000). Before, this
// statement rewrote every pending delivery, in the PATCH's transaction: one
// non-HOT update of every index per delivery, 320 k of them after a 3-day
// outage, past the request's timeout, and the endpoint stayed disabled.
// This bounded part only keeps next_attempt_at, as the deliveries list
// shows it, honest for a small backlog; the rule does not need it.
//
// A delivery in flight (live lease) is left to its attempt; the re-enable
// moved the endpoint's enabled_at past its claim, so the attempt's failure
// gives it the same fresh window (Complete).
func freshWindow(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, id uuid.UUID) error {
	_, err := tx.NewRaw(`UPDATE webhook_deliveries d SET first_failed_at = NULL, window_attempts = 0, unprepared_since = NULL,
			next_attempt_at = clock_timestamp(),
			updated_at = clock_timestamp()
		FROM (
			SELECT s.id FROM webhook_deliveries s
			WHERE s.endpoint_id = ? AND s.status = 'pending' AND s.organization_id = ?
			  AND (s.leased_until IS NULL OR s.leased_until <= clock_timestamp())
			ORDER BY s.next_attempt_at DESC
			LIMIT ?
		) s
		WHERE d.organization_id = ? AND d.id = s.id`, id, org, FreshWindowBatch, org).Exec(ctx)
	return database.Error(err)
}

// DeleteEndpoint removes the endpoint id of org, in one row: its deliveries
// and their attempts are unreachable from then on (every statement that
// reads a delivery goes through its endpoint) and are deleted in the
// background (PurgeDeletedEndpoints), from the tombstone the database
// writes in the same statement (trigger webhook_endpoint_tombstone,
// migration 20261205020000). Until then the DELETE cascaded to every
// delivery and attempt in one statement, 1.6 M deliveries for a busy
// endpoint, past the request's timeout.
func DeleteEndpoint(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	return storage.Delete[Endpoint](ctx, db, org, id, EndpointKind)
}

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
}

// CreateEndpoint registers an endpoint of org with a new signing secret,
// stored sealed by s under the endpoint's id, and returns it with the
// secret in the clear (the only time it is shown).
func CreateEndpoint(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, s *seal.Sealer, in NewEndpoint) (*CreatedEndpoint, error) {
	id := uuid.New()
	secret, sealed, err := newSealedSecret(s, id)
	if err != nil {
		return nil, err
	}
	e := &Endpoint{ID: id, OrganizationID: org.UUID, URL: in.URL, Description: in.Description,
		EnabledEvents: in.EnabledEvents, Status: Enabled, SealedSecret: sealed}
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

// EndpointPatch holds the fields a PATCH sets (nil: unchanged).
type EndpointPatch struct {
	URL            *string
	Description    *string
	DescriptionSet bool
	EnabledEvents  []string
	Status         *string
}

// UpdateEndpoint applies p to the endpoint id of org. Setting status
// enabled clears failing_since and, on a disabled endpoint, gives its
// pending deliveries a fresh retry window, so the endpoint starts a fresh
// run: the database's trigger then moves its enabled_at, and the failure
// of an attempt claimed before no longer counts against it (Complete).
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
			return errs.NotFoundf(EndpointKind)
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
		if reenabled {
			if err := freshWindow(ctx, tx, org, id); err != nil {
				return err
			}
		}
		e, err := update(ctx, tx, org, id, p, reenabled)
		out = e
		return err
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
// failing_since there, without the fresh windows a re-enable gives
// (freshWindow), made a failing endpoint look healthy until a delivery
// whose old window ran out disabled it moments later.
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

// freshWindow gives the pending deliveries of a disabled endpoint that is
// being enabled again a fresh retry window, due now: their window ran on
// while the endpoint was disabled, and one more failure would otherwise
// fail them for good and disable the endpoint at once (docs/webhooks.md).
// Their backoff starts again at its first step (window_attempts), and the
// window of failures of ours (unprepared_since) starts afresh too. A
// delivery in flight (live lease) is left to its attempt; the re-enable
// moves the endpoint's enabled_at past its claim, so the attempt's failure
// gives it the same fresh window (Complete).
func freshWindow(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, id uuid.UUID) error {
	_, err := tx.NewRaw(`UPDATE webhook_deliveries SET first_failed_at = NULL, window_attempts = 0, unprepared_since = NULL,
			next_attempt_at = clock_timestamp(),
			updated_at = clock_timestamp()
		WHERE organization_id = ? AND endpoint_id = ? AND status = 'pending'
		  AND (leased_until IS NULL OR leased_until <= clock_timestamp())`, org, id).Exec(ctx)
	return database.Error(err)
}

// DeleteEndpoint removes the endpoint id of org with its deliveries.
func DeleteEndpoint(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	return storage.Delete[Endpoint](ctx, db, org, id, EndpointKind)
}

package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// DefaultPreviousSecretTTL is how long the secret a rotation replaces goes
// on signing when the request does not say (docs/webhooks.md, "Rotating
// the secret"); the bounds of what it may say are the OpenAPI document's.
const DefaultPreviousSecretTTL = 24 * time.Hour

// RotateSecret gives the endpoint id of org a new signing secret, sealed by
// s under the endpoint's id as CreateEndpoint seals one, and returns the
// endpoint with the new secret in the clear (the only time it is shown).
// The secret it replaces is kept as the previous secret, signing every
// attempt beside the new one, for keep; a rotation during a grace period
// drops the older previous secret (only one is kept), and keep 0 drops the
// replaced secret at once.
//
// The endpoint's row is locked before its secret is read, so concurrent
// rotations run one after the other: each keeps the secret the one before
// it made, and none is lost without its caller knowing. Read without the
// lock, two rotations could both keep the same old secret, and the secret
// one of them answered would never sign anything.
//
// allow is given the endpoint's subscription, with the row locked, and
// refuses the rotation with an error, as UpdateEndpoint's does a change:
// the new secret signs every message of the subscription, so whoever holds
// it can forge them, and with keep 0 cut the receiver off.
func RotateSecret(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, s *seal.Sealer, id uuid.UUID, keep time.Duration,
	allow func(enabledEvents []string) error) (*CreatedEndpoint, error) {
	secret, sealed, err := newSealedSecret(s, id)
	if err != nil {
		return nil, err
	}
	var out CreatedEndpoint
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var current []byte
		var events []string
		err := tx.NewRaw(`SELECT secret, enabled_events FROM webhook_endpoints WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE`,
			org, id).Scan(ctx, &current, pgdialect.Array(&events))
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundOf(EndpointKind)
		}
		if err != nil {
			return database.Error(err)
		}
		if err := allow(events); err != nil {
			return err
		}
		var previous []byte
		if keep > 0 {
			previous = current
		}
		// One reading of the clock for updated_at and the expiry, so the
		// grace period is exactly keep from the rotation.
		err = tx.NewRaw(`UPDATE webhook_endpoints AS we SET secret = ?, previous_secret = ?,
				previous_secret_expires_at = CASE WHEN ? THEN n.at + make_interval(secs => ?) END, updated_at = n.at
			FROM (SELECT clock_timestamp() AS at) AS n
			WHERE we.organization_id = ? AND we.id = ?
			RETURNING we.*`,
			sealed, previous, keep > 0, keep.Seconds(), org, id).Scan(ctx, &out.Endpoint)
		return database.Error(err)
	})
	if err != nil {
		return nil, err
	}
	out.Secret = secret
	return &out, nil
}

// ForgetExpiredSecrets erases, in every organization, the previous secrets
// whose grace period has ended, and returns how many. Such a secret signs
// nothing any more (the queue reads it only before its expiry, and the API
// hides its expiry from then on), so keeping it, even sealed, would only
// keep a once-valid secret in every backup until the endpoint's next
// rotation. updated_at is left alone: what the API shows of
// the endpoint does not change.
func ForgetExpiredSecrets(ctx context.Context, db bun.IDB) (int64, error) {
	res, err := db.NewRaw(`/* every organization: expired previous webhook secrets */
		UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_expires_at = NULL
		WHERE previous_secret_expires_at <= clock_timestamp()`).Exec(ctx)
	if err != nil {
		return 0, database.Error(err)
	}
	return res.RowsAffected()
}

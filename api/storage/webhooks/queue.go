package webhooks

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Claim is one delivery a worker holds until LeasedUntil.
type Claim struct {
	ID             uuid.UUID `bun:"id,type:uuid"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid"`
	EndpointID     uuid.UUID `bun:"endpoint_id,type:uuid"`
	ChangeID       uuid.UUID `bun:"change_id,type:uuid"`
	// WindowAttempts counts the failed attempts of the current retry
	// window (since FirstFailedAt): the backoff's step, which a fresh
	// window starts again (docs/webhooks.md, "Delivery and retries").
	WindowAttempts int        `bun:"window_attempts"`
	FirstFailedAt  *time.Time `bun:"first_failed_at"`
	// UnpreparedSince is the first of the delivery's current run of
	// failures of ours to prepare it (Unsent); nil when there is none.
	UnpreparedSince *time.Time `bun:"unprepared_since"`
	LeaseOwner      uuid.UUID  `bun:"lease_owner,type:uuid"`
	LeasedUntil     time.Time  `bun:"leased_until"`
	// Now is the database's clock at the claim.
	Now time.Time `bun:"now"`
}

// Org is the claim's organization.
func (c *Claim) Org() tenancy.OrganizationID { return tenancy.OrganizationID{UUID: c.OrganizationID} }

// Shares is one process's cap per organization on its delivery slots: an
// organization holds at most Cap of them at once, of which Held (by
// organization id) are in flight now. The zero value caps nothing.
type Shares struct {
	Cap  int
	Held map[uuid.UUID]int
}

// free is what each organization that holds slots may still claim, as two
// lists, and every other organization's allowance: at most limit when
// nothing is capped.
func (s Shares) free(limit int) (orgs []uuid.UUID, left []int64, others int) {
	orgs, left = []uuid.UUID{}, []int64{}
	if s.Cap <= 0 {
		return orgs, left, limit
	}
	for org, n := range s.Held {
		orgs = append(orgs, org)
		left = append(left, int64(max(s.Cap-n, 0)))
	}
	return orgs, left, s.Cap
}

// ClaimDue claims up to limit due deliveries of enabled endpoints, at most
// perEndpoint in flight per endpoint and at most what shares leaves to each
// organization, each for lease. In one transaction:
// the endpoints with due deliveries are locked (FOR NO KEY UPDATE SKIP
// LOCKED: claims of one endpoint are serialized across pods, while the
// fan-out's inserts, which take KEY SHARE, never wait), their live leases
// counted, and the free slots filled with their oldest due deliveries. A
// claim pushes next_attempt_at to the lease's end, so a claim that is never
// completed (its pod died) is simply due again when the lease expires.
//
// Claiming is fair across organizations and endpoints (docs/webhooks.md,
// "Fairness"): the endpoints locked are at most limit of those with a free
// slot (an endpoint at its cap is skipped, it would only waste the limit),
// those whose organization has the fewest deliveries in flight first, then
// those with the fewest in flight themselves, then those whose oldest due
// delivery has waited longest; and the limit is dealt out one delivery per
// endpoint per turn, in that order. So one organization's backlog, however
// old and deep, takes the free slots only while no other organization with
// fewer deliveries in flight has one due.
//
// The first statement's in-flight counts only rank and skip endpoints: they
// are read before the locks, so they may be stale, and they look at most
// lease ahead (a live lease is due again at its end, which is within lease
// for every pod with this setting; a longer lease elsewhere is missed),
// which keeps them from reading an endpoint's whole backoff backlog. The
// cap is enforced by the second statement, whose snapshot is taken once
// the endpoints are locked, so it sees the claims every other pod committed
// for them; it counts every live lease, through the small index of leased
// deliveries (webhook_deliveries_endpoint_leased_idx): through the pending
// index it read the endpoint's whole backoff backlog, hundreds of
// milliseconds for a failing endpoint's 200,000, on every claim.
//
// A re-enable gives every pending delivery of the endpoint a fresh window,
// due at once, without writing them (UpdateEndpoint): a pending delivery
// last written before the endpoint's enabled_at (updated_at < enabled_at)
// is stale, and a stale delivery is due whatever its next_attempt_at,
// unless its lease is live (an attempt claimed before the re-enable, left
// to its end). Both statements find an endpoint's stale deliveries through
// webhook_deliveries_endpoint_stale_idx (endpoint_id, updated_at), where
// they are the head of its range, beside the due ones through
// webhook_deliveries_endpoint_pending_idx; a stale delivery counts as due
// since the re-enable (or its next_attempt_at, when earlier). Claiming a
// stale delivery clears its window in the same UPDATE (trigger
// webhook_delivery_claimed, migration 20261205020000), so the window state
// the claim returns, from which the worker draws the wait and decides to
// give up, is the fresh one; the claim writes updated_at, so the delivery
// is stale no more.
//
// The process's cap per organization (shares, docs/webhooks.md,
// "Fairness") keeps one organization from holding every slot of a process
// with attempts to receivers that answer slowly: the ranking only orders
// who gets a slot that is free. An organization's endpoints are locked only
// up to what its share leaves, its best ranked first (an endpoint locked is
// expected to give a delivery), so that one with some share left cannot
// spend the claim's limit on endpoints whose deliveries the second
// statement would drop while another organization's wait; and the
// deliveries of one claim are kept within each organization's allowance in
// the claim's own order. The endpoints are ranked before they are locked:
// one another pod's claim holds at that moment (SKIP LOCKED), or whose due
// deliveries it has just taken, still uses its organization's allowance,
// so the organization gets less than its share leaves in this claim and
// the rest at the worker's next claim (a poll interval at most).
//
// Only endpoints that exist are claimed: a deleted endpoint's deliveries
// stay, unreachable, until PurgeDeletedEndpoints deletes them.
func ClaimDue(ctx context.Context, db *bun.DB, limit, perEndpoint int, lease time.Duration, shares Shares) ([]Claim, error) {
	orgs, left, others := shares.free(limit)
	var out []Claim
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var endpoints []uuid.UUID
		// pending walks the endpoints that have pending deliveries (one
		// probe of the pending index each, not one per enabled endpoint or
		// per due delivery); every delivery in flight is one of them.
		err := tx.NewRaw(`/* every organization: the webhook workers' claim */
			WITH RECURSIVE pending AS (
				(SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' ORDER BY d.endpoint_id LIMIT 1)
				UNION ALL
				SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
					WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
				FROM pending p WHERE p.endpoint_id IS NOT NULL
			), load AS (
				SELECT e.id, e.organization_id AS org, least(due.at, stale.at) AS at, live.n, sum(live.n) OVER (PARTITION BY e.organization_id) AS org_n
				FROM pending p
				JOIN webhook_endpoints e ON e.id = p.endpoint_id AND e.status = 'enabled'
				LEFT JOIN LATERAL (
					SELECT d.next_attempt_at AS at FROM webhook_deliveries d
					WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= statement_timestamp()
					ORDER BY d.next_attempt_at LIMIT 1
				) due ON true
				LEFT JOIN LATERAL (
					SELECT e.enabled_at AS at FROM webhook_deliveries s
					WHERE s.endpoint_id = e.id AND `+staleDelivery("s", "e.enabled_at")+`
					LIMIT 1
				) stale ON true
				CROSS JOIN LATERAL (
					SELECT count(*) AS n FROM webhook_deliveries f
					WHERE f.endpoint_id = e.id AND `+liveLease("f")+`
					  AND f.next_attempt_at <= statement_timestamp() + make_interval(secs => ?)
				) live
			), ranked AS (
				SELECT l.*, coalesce(share.free, ?) AS allowance,
					row_number() OVER (PARTITION BY l.org ORDER BY l.org_n, l.n, l.at, l.id) AS org_rank
				FROM load l
				LEFT JOIN unnest(?::uuid[], ?::bigint[]) AS share(org, free) ON share.org = l.org
				WHERE l.at IS NOT NULL AND l.n < ?
			)
			SELECT e.id FROM webhook_endpoints e JOIN ranked r ON r.id = e.id
			WHERE e.status = 'enabled' AND r.org_rank <= r.allowance
			ORDER BY r.org_n, r.n, r.at, e.id
			LIMIT ? FOR NO KEY UPDATE OF e SKIP LOCKED`, lease.Seconds(), others, pgdialect.Array(orgs), pgdialect.Array(left),
			perEndpoint, limit).Scan(ctx, &endpoints)
		if err != nil || len(endpoints) == 0 {
			return err
		}
		// A live lease is never due (a claim sets next_attempt_at to the
		// lease's end; Complete and Release clear the lease), so the count
		// reads only the endpoint's deliveries that are not due.
		return tx.NewRaw(`/* every organization: the webhook workers' claim, leasing */
			UPDATE webhook_deliveries d
			SET leased_until = c.until, next_attempt_at = c.until, lease_owner = gen_random_uuid(), updated_at = clock_timestamp()
			FROM (
				SELECT y.id, clock_timestamp() + make_interval(secs => ?) AS until
				FROM (
					SELECT x.id, x.ord, x.turn, x.org,
						row_number() OVER (PARTITION BY x.org ORDER BY x.turn, x.ord) AS org_turn
					FROM (
						SELECT x.id, e.ord, free.n AS free, we.organization_id AS org,
							row_number() OVER (PARTITION BY e.ord ORDER BY x.at, x.created_at) AS turn
						FROM unnest(?::uuid[]) WITH ORDINALITY AS e(id, ord)
						JOIN webhook_endpoints we ON we.id = e.id
						CROSS JOIN LATERAL (
							SELECT greatest(0, ? - (SELECT count(*) FROM webhook_deliveries f
								WHERE f.endpoint_id = e.id AND `+liveLease("f")+`)) AS n
							OFFSET 0 -- counted once per endpoint, not once per use
						) free
						CROSS JOIN LATERAL (
							SELECT DISTINCT ON (u.id) u.id, u.at, u.created_at FROM (
								SELECT * FROM (
									SELECT d2.id, d2.next_attempt_at AS at, d2.created_at FROM webhook_deliveries d2
									WHERE d2.endpoint_id = e.id AND d2.status = 'pending' AND d2.next_attempt_at <= statement_timestamp()
									ORDER BY d2.next_attempt_at, d2.created_at
									LIMIT free.n
									FOR UPDATE SKIP LOCKED
								) due
								UNION ALL
								SELECT * FROM (
									SELECT s.id, least(s.next_attempt_at, we.enabled_at) AS at, s.created_at FROM webhook_deliveries s
									WHERE s.endpoint_id = e.id AND `+staleDelivery("s", "we.enabled_at")+`
									ORDER BY s.updated_at
									LIMIT free.n
									FOR UPDATE SKIP LOCKED
								) stale
							) u
							ORDER BY u.id, u.at
						) x
					) x
					WHERE x.turn <= x.free
				) y
				LEFT JOIN unnest(?::uuid[], ?::bigint[]) AS share(org, free) ON share.org = y.org
				WHERE y.org_turn <= coalesce(share.free, ?)
				ORDER BY y.turn, y.ord
				LIMIT ?
			) c
			WHERE d.id = c.id
			RETURNING d.id, d.organization_id, d.endpoint_id, d.change_id, d.window_attempts, d.first_failed_at,
				d.unprepared_since, d.lease_owner, d.leased_until, clock_timestamp() AS now`,
			lease.Seconds(), pgdialect.Array(endpoints), perEndpoint,
			pgdialect.Array(orgs), pgdialect.Array(left), others, limit).Scan(ctx, &out)
	})
	if err != nil {
		// The rows were read before the COMMIT failed: their leases are
		// not held, so they must not be sent.
		return nil, database.Error(err)
	}
	return out, nil
}

// Message is what a claimed delivery sends: the endpoint's address and
// sealed secrets, and the change.
type Message struct {
	// EnabledEvents is the endpoint's subscription as it is now (Subscribed).
	EnabledEvents []string `bun:"enabled_events,array"`
	URL           string   `bun:"url"`
	SealedSecret  []byte   `bun:"secret"`
	// SealedPreviousSecret is the secret a rotation replaced while its
	// grace period lasts (by the database's clock at the load), else nil:
	// the attempt is signed with it too.
	SealedPreviousSecret []byte          `bun:"previous_secret"`
	ChangeID             uuid.UUID       `bun:"change_id,type:uuid"`
	Type                 string          `bun:"type"`
	ObjectType           string          `bun:"object_type"`
	ObjectID             uuid.UUID       `bun:"object_id,type:uuid"`
	Data                 json.RawMessage `bun:"data,type:jsonb"`
	CreatedAt            time.Time       `bun:"created_at"`
}

// LoadMessage reads what claim c sends; found is false when the delivery,
// its endpoint or its change is gone.
func LoadMessage(ctx context.Context, db bun.IDB, c *Claim) (m Message, found bool, err error) {
	var ms []Message
	err = db.NewRaw(`/* the webhook worker's message */ SELECT e.enabled_events, e.url, e.secret,
			CASE WHEN e.previous_secret_expires_at > clock_timestamp() THEN e.previous_secret END AS previous_secret,
			ch.id AS change_id, ch.type, ch.object_type, ch.object_id, ch.data, ch.created_at
		FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
		JOIN changes ch ON ch.organization_id = d.organization_id AND ch.seq = d.change_seq
		WHERE d.organization_id = ? AND d.id = ?`, c.OrganizationID, c.ID).Scan(ctx, &ms)
	if err != nil || len(ms) == 0 {
		return Message{}, false, database.Error(err)
	}
	return ms[0], true, nil
}

// Subscribed reports whether the endpoint's subscription still takes the
// change's type. It may have changed after the delivery was made: such a
// delivery fails unsent (Unsent), never sent to the endpoint's URL as it
// is now.
func (m *Message) Subscribed() bool { return Subscribes(m.EnabledEvents, m.Type) }

// Sendable reports whether the endpoint of claim c is enabled now: the
// worker's last look before it sends (docs/webhooks.md, "Disabling stops
// what is not sent yet"). A claim is made only for an enabled endpoint, but
// the endpoint may be disabled (a PATCH, or another delivery given up)
// while the worker loads and renders the message; a claim of an endpoint
// that is disabled or gone is not sent. It reads the committed status
// without a lock: a disable still open commits after the request starts,
// which is then an attempt in flight.
func Sendable(ctx context.Context, db bun.IDB, c *Claim) (bool, error) {
	var ok bool
	err := db.NewRaw(`/* the webhook worker's last look */ SELECT EXISTS (SELECT 1 FROM webhook_endpoints
		WHERE organization_id = ? AND id = ? AND status = 'enabled')`, c.OrganizationID, c.EndpointID).Scan(ctx, &ok)
	return ok, database.Error(err)
}

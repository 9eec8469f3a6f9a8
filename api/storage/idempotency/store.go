package idempotency

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Row is a completed (or still open) idempotency_keys row.
type Row struct {
	Fingerprint []byte `bun:"fingerprint"`
	Status      *int   `bun:"status"`
	ContentType string `bun:"content_type"`
	Response    []byte `bun:"response"`
	// Sealed says Response is sealed (false on rows written before).
	Sealed bool `bun:"response_sealed"`
	// Scopes are the scopes a replaying key must hold (the middleware's
	// record.Scopes; nil on rows written before 2.7.1).
	Scopes []string `bun:"scopes,array"`
	// AgeSeconds is how long ago the row was created, by the database clock.
	AgeSeconds float64 `bun:"age_seconds"`
}

// TTL is how much longer the row's response may be replayed.
func (r *Row) TTL(retention time.Duration) time.Duration {
	return max(time.Second, retention-time.Duration(r.AgeSeconds*float64(time.Second)))
}

// Done reports whether the row holds its response (Complete).
func (r *Row) Done() bool { return r.Status != nil }

// Answer is the response Complete records on a row.
type Answer struct {
	Status      int
	ContentType string
	Body        []byte
	// Sealed says Body is sealed.
	Sealed bool
	Scopes []string
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// Open inserts the row for (org, key) in tx and returns nil when this
// request owns it. When a live row exists (an earlier attempt committed,
// possibly in a process that died before telling the edge store) it returns
// that row. An INSERT that meets a row still uncommitted by another
// transaction waits for it, so two attempts never both execute. Rows past
// the retention are recycled.
func Open(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, key string, fp []byte, retention time.Duration) (*Row, error) {
	r, err := claimRow(ctx, tx, org, key, fp, retention)
	if errors.Is(err, errVanished) {
		// The row passed the retention (or was purged) between the claim
		// and the read, as a key reused right at its 24 h can: it is
		// recyclable now, so the claim is made once more.
		r, err = claimRow(ctx, tx, org, key, fp, retention)
	}
	return r, err
}

// probeWait is how long a takeover's INSERT waits for a transaction that
// holds the key's row (OpenWithin). A row held by a live attempt always
// makes it wait, so the least lock_timeout never takes a running attempt
// for a dead one (other lock waits, such as a purge batch holding an
// expired row of the key, time it out too: a safe 409); anything longer
// would hold a pool connection that long for each retry of a key in use.
const probeWait = time.Millisecond

// ErrOwnerRunning is OpenWithin's answer when an open transaction holds
// the key's row: the attempt that holds it still runs.
var ErrOwnerRunning = errors.New("an open transaction holds the Idempotency-Key's row")

// OpenWithin is Open whose INSERT waits at most probeWait for a
// transaction that holds the key's row, and answers ErrOwnerRunning when
// one does. The transaction's lock_timeout is set for that statement and
// then put back to the value it had, whatever set it (the database, the
// role, the connection, an earlier SET), so the handler's own statements
// wait as they would anywhere else.
func OpenWithin(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, key string, fp []byte, retention time.Duration) (*Row, error) {
	before, r, err := openBounded(ctx, tx, org, key, fp, retention)
	if err != nil {
		return nil, err
	}
	if _, err := tx.NewRaw("SELECT set_config('lock_timeout', ?, true)", before).Exec(ctx); err != nil {
		return nil, database.Error(err)
	}
	return r, nil
}

// openBounded is OpenWithin without putting lock_timeout back: it returns
// the value it replaced, and leaves the transaction at probeWait.
func openBounded(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, key string, fp []byte, retention time.Duration) (before string, r *Row, err error) {
	var set string
	// The materialized CTE reads the old value before the row's set_config runs.
	if err := tx.NewRaw(`WITH old AS MATERIALIZED (SELECT current_setting('lock_timeout') AS v)
		SELECT v, set_config('lock_timeout', ?, true) FROM old`, fmt.Sprintf("%dms", probeWait.Milliseconds())).
		Scan(ctx, &before, &set); err != nil {
		return "", nil, database.Error(err)
	}
	r, err = Open(ctx, tx, org, key, fp, retention)
	if database.HasCode(err, pgerrcode.LockNotAvailable) {
		return "", nil, ErrOwnerRunning
	}
	return before, r, err
}

// OwnerRunning reports whether a transaction holds (org, key)'s row: the
// earlier attempt that left an in-progress marker still runs. It makes
// openBounded's INSERT in a transaction of its own that it always rolls
// back (the lock_timeout goes with it, so it is not put back), before the
// request waits for a write slot, so it changes nothing and a retry of a
// key in use waits behind no other write. A dead attempt's transaction,
// rolled back once PostgreSQL saw its connection close, holds nothing, and
// neither does an attempt that has not reached its INSERT yet: the retry
// then executes, and such an attempt, when it reaches its INSERT, waits for
// the retry's transaction and replays its answer (the primary key keeps the
// exactly-once rule).
func OwnerRunning(ctx context.Context, db *bun.DB, org tenancy.OrganizationID, key string, fp []byte, retention time.Duration) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, database.Error(err)
	}
	defer func() { _ = tx.Rollback() }()
	_, _, err = openBounded(ctx, tx, org, key, fp, retention)
	if errors.Is(err, ErrOwnerRunning) {
		return true, nil
	}
	return false, err
}

// errVanished is claimRow's answer when the row it could not claim was no
// longer live when read back.
var errVanished = errors.New("idempotency row vanished during its claim")

// claimRow is one attempt of Open.
func claimRow(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, key string, fp []byte, retention time.Duration) (*Row, error) {
	var owned bool
	err := tx.NewRaw(`
		INSERT INTO idempotency_keys (organization_id, key, fingerprint)
		VALUES (?, ?, ?)
		ON CONFLICT (organization_id, key) DO UPDATE
		SET fingerprint = EXCLUDED.fingerprint, status = NULL, content_type = NULL, response = NULL,
		    response_sealed = false, scopes = NULL, created_at = clock_timestamp(), completed_at = NULL
		WHERE idempotency_keys.created_at < clock_timestamp() - make_interval(secs => ?)
		RETURNING true`, org, key, fp, seconds(retention)).Scan(ctx, &owned)
	if err == nil {
		return nil, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, database.Error(err)
	}
	r, err := Find(ctx, tx, org, key, retention)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errVanished
	}
	return r, nil
}

// Find returns the live row of (org, key), or nil.
func Find(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, key string, retention time.Duration) (*Row, error) {
	r := new(Row)
	err := db.NewRaw(`
		SELECT fingerprint, status, coalesce(content_type, '') AS content_type, response, response_sealed, scopes,
		       extract(epoch FROM clock_timestamp() - created_at)::float8 AS age_seconds
		FROM idempotency_keys
		WHERE organization_id = ? AND key = ?
		  AND created_at >= clock_timestamp() - make_interval(secs => ?)`,
		org, key, seconds(retention)).Scan(ctx, r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, database.Error(err)
	}
	return r, nil
}

// Complete records the response a on the row in tx.
func Complete(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, key string, a Answer) error {
	_, err := tx.NewRaw(`
		UPDATE idempotency_keys
		SET status = ?, content_type = ?, response = ?, response_sealed = ?, scopes = ?, completed_at = clock_timestamp()
		WHERE organization_id = ? AND key = ?`,
		a.Status, a.ContentType, a.Body, a.Sealed, pgdialect.Array(a.Scopes), org, key).Exec(ctx)
	return database.Error(err)
}

const savepointName = "idempotent_request"

// Savepoint marks the start of the handler's work in tx.
func Savepoint(ctx context.Context, tx bun.Tx) error {
	_, err := tx.ExecContext(ctx, "SAVEPOINT "+savepointName)
	return database.Error(err)
}

// RollbackToSavepoint undoes the handler's work, keeping the key's row.
func RollbackToSavepoint(ctx context.Context, tx bun.Tx) error {
	_, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+savepointName)
	return database.Error(err)
}

// Purge deletes the rows older than retention, batch at a time, each batch
// a statement of its own, until one finds fewer, and reports how many it
// deleted: however many keys a busy hour made, the purge keeps up, and no
// statement runs long. Retention spans every organization, so the
// statements carry the marker the tenant filter check (storage/storagetest)
// accepts. Processes that purge at once take different rows (SKIP LOCKED).
// The cutoff is the statement's start (statement_timestamp), a value the
// planner can compare with idempotency_keys_created_idx; clock_timestamp(),
// computed per row, made every run a scan of the whole table.
func Purge(ctx context.Context, db bun.IDB, retention time.Duration, batch int) (int64, error) {
	return database.DeleteInBatches(ctx, db, batch, `/* every organization: retention */
		DELETE FROM idempotency_keys WHERE ctid IN (
			SELECT ctid FROM idempotency_keys
			WHERE created_at < statement_timestamp() - make_interval(secs => ?)
			LIMIT ? FOR UPDATE SKIP LOCKED)`, seconds(retention))
}

package idempotency

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// expireAfterClaim stands for the clock passing the retention between the
// claim's two statements (a key reused right at its 24 h: the upsert finds
// the row live, the read-back finds it expired). Once the first upsert has
// left the row alone, it moves the row's created_at back by the retention
// in the claim's own transaction, so the read-back sees it expired however
// long either statement took; expired says it did.
type expireAfterClaim struct {
	tx        *bun.Tx
	org       uuid.UUID
	retention time.Duration
	expired   bool
	err       error
}

func (*expireAfterClaim) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h *expireAfterClaim) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if h.expired || !strings.Contains(e.Query, "INSERT INTO idempotency_keys") || !errors.Is(e.Err, sql.ErrNoRows) {
		return
	}
	h.expired = true
	_, h.err = h.tx.ExecContext(ctx, `UPDATE idempotency_keys SET created_at = created_at - make_interval(secs => ?)
		WHERE organization_id = ? AND key = 'k'`, h.retention.Seconds(), h.org)
}

// TestClaimAtTheRetentionBoundary: a row the claim's upsert finds live but
// whose retention has passed when the claim reads it back is claimed again
// and owned, recycled, where the claim answered 500 ("vanished"). The row
// is half the retention old, so the first upsert cannot recycle it however
// slow the machine; two upserts show the second claim was made.
func TestClaimAtTheRetentionBoundary(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Boundary", nil)
	if err != nil {
		t.Fatal(err)
	}
	const retention = time.Hour
	if _, err := db.NewRaw(`INSERT INTO idempotency_keys (organization_id, key, fingerprint, status, created_at)
		VALUES (?, 'k', '\x00', 201, clock_timestamp() - make_interval(secs => ?))`,
		org.ID, (retention / 2).Seconds()).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	expire := &expireAfterClaim{org: org.ID, retention: retention}
	upserts := &pgtest.Statements{Marker: "INSERT INTO idempotency_keys"}
	tx, err := db.WithQueryHook(upserts).WithQueryHook(expire).BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	expire.tx = &tx
	r, err := Open(ctx, tx, org.OrgID(), "k", []byte{1}, retention)
	if expire.err != nil {
		t.Fatalf("moving the row past the retention: %v", expire.err)
	}
	if err != nil || r != nil {
		t.Fatalf("Open at the boundary = %+v, %v; want the recycled row owned (nil, nil)", r, err)
	}
	if !expire.expired || len(upserts.Sent) != 2 {
		t.Fatalf("the row expired between the claim's statements: %v; %d upserts, want 2 (the boundary's second claim)",
			expire.expired, len(upserts.Sent))
	}
	var fingerprint []byte
	var status *int
	if err := tx.NewRaw("SELECT fingerprint, status FROM idempotency_keys WHERE organization_id = ? AND key = 'k'",
		org.ID).Scan(ctx, &fingerprint, &status); err != nil {
		t.Fatal(err)
	}
	if string(fingerprint) != "\x01" || status != nil {
		t.Fatalf("row after the claim: fingerprint %x, status %v; want the claim's (01, open)", fingerprint, status)
	}
}

// TestPurgeKeepsUp: the purge deletes every row past the retention, a
// batch per statement until one finds fewer, where it deleted one batch
// per run (10,000 rows per 10 minutes per process, fewer than a busy
// organization's keyed writes make); rows within the retention stay.
func TestPurgeKeepsUp(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Purged", nil)
	if err != nil {
		t.Fatal(err)
	}
	const retention = time.Hour
	if _, err := db.NewRaw(`INSERT INTO idempotency_keys (organization_id, key, fingerprint, status, created_at)
		SELECT ?::uuid, 'old-' || g, '\x00'::bytea, 201, clock_timestamp() - make_interval(secs => ?) - interval '1 minute'
		FROM generate_series(1, 7) g
		UNION ALL SELECT ?::uuid, 'new-' || g, '\x00'::bytea, 201, clock_timestamp() FROM generate_series(1, 2) g`,
		org.ID, retention.Seconds(), org.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	statements := &pgtest.Statements{Marker: "DELETE FROM idempotency_keys"}
	n, err := Purge(ctx, db.WithQueryHook(statements), retention, 3)
	if err != nil || n != 7 || len(statements.Sent) != 3 {
		t.Fatalf("purge: %d rows in %d statements, %v; want 7 in 3 (batches of 3, 3 and 1)", n, len(statements.Sent), err)
	}
	var left []string
	if err := db.NewRaw("SELECT key FROM idempotency_keys WHERE organization_id = ? ORDER BY key", org.ID).Scan(ctx, &left); err != nil {
		t.Fatal(err)
	}
	if strings.Join(left, ",") != "new-1,new-2" {
		t.Fatalf("left %v, want the two rows within the retention", left)
	}
}

// TestPurgeCanBeServedByAnIndex: the purge's statement can find the rows
// past the retention through idempotency_keys_created_idx. Its cutoff used
// to be computed per row (clock_timestamp()), which no index can serve:
// every run, every 10 minutes on every pod, was a scan of the whole table.
func TestPurgeCanBeServedByAnIndex(t *testing.T) {
	db := pgtest.Open(t)
	sent := &pgtest.Statements{Marker: "DELETE FROM idempotency_keys"}
	if _, err := Purge(context.Background(), db.WithQueryHook(sent), time.Hour, 10); err != nil || len(sent.Sent) != 1 {
		t.Fatalf("purge: %d statements, %v; want 1", len(sent.Sent), err)
	}
	if plan := pgtest.PlanWithoutSeqScans(t, db, sent.Sent[0]); strings.Contains(plan, "Seq Scan on idempotency_keys") {
		t.Fatalf("the purge scans the whole table:\n%s", plan)
	}
}

// TestOpenWithinPutsTheLockTimeoutBack: the takeover's bounded INSERT
// leaves the transaction's lock_timeout as it found it, whatever set it,
// so the handler's statements after it wait as long as anywhere else.
func TestOpenWithinPutsTheLockTimeoutBack(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Lock timeout", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"", "7s"} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if set != "" {
			if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '"+set+"'"); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.NewRaw("SHOW lock_timeout").Scan(ctx, &want); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenWithin(ctx, tx, org.OrgID(), "k-timeout-"+set, []byte("fp"), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := tx.NewRaw("SHOW lock_timeout").Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		_ = tx.Rollback()
		if got != want {
			t.Errorf("lock_timeout %q after OpenWithin, want %q as before it", got, want)
		}
	}
}

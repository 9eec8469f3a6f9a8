package idempotency

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// expireAfterClaim holds the connection for a moment after the claim's
// upsert, so that a row just short of the retention is past it when the
// claim reads it back (a key reused right at its 24 h; the two statements
// read the clock apart).
type expireAfterClaim struct{}

func (expireAfterClaim) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (expireAfterClaim) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.Contains(e.Query, "INSERT INTO idempotency_keys") {
		time.Sleep(300 * time.Millisecond)
	}
}

// TestClaimAtTheRetentionBoundary: a row 100 ms short of the retention is
// not recycled by the claim's upsert but has passed the retention when read
// back; the claim is made again and owns the recycled row, where it
// answered 500 ("vanished").
func TestClaimAtTheRetentionBoundary(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Boundary", nil)
	if err != nil {
		t.Fatal(err)
	}
	const retention = time.Hour
	if _, err := db.NewRaw(`INSERT INTO idempotency_keys (organization_id, key, fingerprint, status, created_at)
		VALUES (?, 'k', '\x00', 201, clock_timestamp() - make_interval(secs => ?) + interval '100 milliseconds')`,
		org.ID, retention.Seconds()).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	hooked := db.WithQueryHook(expireAfterClaim{})
	tx, err := hooked.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	r, err := open(ctx, tx, org.ID, "k", []byte{1}, retention)
	if err != nil || r != nil {
		t.Fatalf("open at the boundary = %+v, %v; want the recycled row owned (nil, nil)", r, err)
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
	n, err := purge(ctx, db.WithQueryHook(statements), retention, 3)
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
	if _, err := purge(context.Background(), db.WithQueryHook(sent), time.Hour, 10); err != nil || len(sent.Sent) != 1 {
		t.Fatalf("purge: %d statements, %v; want 1", len(sent.Sent), err)
	}
	if plan := pgtest.PlanWithoutSeqScans(t, db, sent.Sent[0]); strings.Contains(plan, "Seq Scan on idempotency_keys") {
		t.Fatalf("the purge scans the whole table:\n%s", plan)
	}
}

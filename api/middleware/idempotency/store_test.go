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

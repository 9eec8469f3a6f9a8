package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestFindOrganization: demo reuses the organization of the name that it
// made (MarkOrganization), never a sandbox; one of that name it did not
// make is refused, and a name nobody has is nil (demo creates it).
func TestFindOrganization(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	made, err := tenancy.CreateOrganization(ctx, db, "Made by demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A sandbox of the same name, made first, is passed over.
	if _, err := tenancy.CreateOrganization(ctx, db, "Made by demo", &made.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tenancy.CreateOrganization(ctx, db, "Someone else's", nil); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := Lock(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := MarkOrganization(ctx, tx, made.OrgID()); err != nil {
		t.Fatal(err)
	}
	if org, err := FindOrganization(ctx, tx, "Made by demo"); err != nil || org == nil || org.ID != made.ID {
		t.Fatalf("the organization demo made: %+v, %v", org, err)
	}
	if org, err := FindOrganization(ctx, tx, "Someone else's"); err == nil || !strings.Contains(err.Error(), "did not make") {
		t.Fatalf("an organization demo did not make: %+v, %v", org, err)
	}
	if org, err := FindOrganization(ctx, tx, "Nobody's"); err != nil || org != nil {
		t.Fatalf("a name nobody has: %+v, %v", org, err)
	}
}

// TestLockSerializesRuns: a second run's Lock waits for the first's
// transaction to end.
func TestLockSerializesRuns(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	first, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Rollback() }()
	if err := Lock(ctx, first); err != nil {
		t.Fatal(err)
	}
	second, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Rollback() }()
	if _, err := second.ExecContext(ctx, "SET LOCAL lock_timeout = '200ms'"); err != nil {
		t.Fatal(err)
	}
	if err := Lock(ctx, second); err == nil {
		t.Fatal("a second run took the lock while the first held it")
	}
	if err := first.Rollback(); err != nil {
		t.Fatal(err)
	}
	third, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = third.Rollback() }()
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := Lock(waitCtx, third); err != nil {
		t.Fatalf("the lock after the first run ended: %v", err)
	}
}

package database_test

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// readOnlyRestart makes a fresh migrated database, runs prepare on it, then
// sets it read-only (default_transaction_read_only, as on a database an
// operator or a managed service made read-only) and returns a new pool on
// it, as a process restarting against it would open. The pool connects
// directly: a transaction pooler could hand out a server connection opened
// before the setting.
func readOnlyRestart(t *testing.T, prepare func(ctx context.Context, db *bun.DB)) *bun.DB {
	t.Helper()
	ctx := context.Background()
	pooled, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	direct.Path = pooled.Path
	name := strings.TrimPrefix(pooled.Path, "/")
	rw, err := database.Open(ctx, direct.String(), database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	prepare(ctx, rw)
	if _, err := rw.ExecContext(ctx, "ALTER DATABASE "+name+" SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	_ = rw.Close()
	ro, err := database.Open(ctx, direct.String(), database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ro.Close() })
	return ro
}

// TestReadOnlyDatabase: a database that refuses writes (SQLSTATE 25006)
// still serves reads. A service secret made before is found without a write,
// so a process restarting against it starts (an INSERT first would be
// refused, and the process would exit); a write is service_unavailable with
// Retry-After and no database text, not internal_error.
func TestReadOnlyDatabase(t *testing.T) {
	var made []byte
	org := uuid.New()
	ro := readOnlyRestart(t, func(ctx context.Context, db *bun.DB) {
		var err error
		if made, err = database.Secret(ctx, db, "cursor_hmac", 32); err != nil || len(made) != 32 {
			t.Fatalf("secret on the writable database: %d bytes, %v", len(made), err)
		}
		if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'x')", org).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	})
	ctx := context.Background()

	got, err := database.Secret(ctx, ro, "cursor_hmac", 32)
	if err != nil || !bytes.Equal(got, made) {
		t.Fatalf("secret on the read-only database: %x, %v; want the one made before, %x", got, err, made)
	}
	var n int
	if err := ro.NewRaw("SELECT count(*) FROM organizations WHERE id = ?", org).Scan(ctx, &n); err != nil || n != 1 {
		t.Fatalf("read on the read-only database: %d rows, %v", n, err)
	}

	writes := map[string]func() error{
		"insert": func() error {
			_, err := ro.NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'c')", org).Exec(ctx)
			return err
		},
		"in a transaction": func() error {
			return database.RunInTx(ctx, ro, func(ctx context.Context, tx bun.Tx) error {
				_, err := tx.NewRaw("UPDATE organizations SET name = 'y' WHERE id = ?", org).Exec(ctx)
				return err
			})
		},
		"a secret not made yet": func() error {
			_, err := database.Secret(ctx, ro, "not_made_yet", 32)
			return err
		},
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			err := write()
			if err == nil {
				t.Fatal("a write on the read-only database succeeded")
			}
			e := errs.As(database.Error(err))
			if e.Code != errs.ServiceUnavailable { // answered with Retry-After, as every 503 (rest.ErrorHandler)
				t.Fatalf("%v → %s, want service_unavailable", err, e.Code)
			}
			for _, leak := range []string{"read-only", "SQLSTATE", "25006", "cannot execute"} {
				if strings.Contains(e.Message, leak) {
					t.Errorf("message %q leaks %q", e.Message, leak)
				}
			}
		})
	}
}

// TestSecretMadeOnce: the first Secret makes the value, every later one
// (another instance's, a restart's) reads that value.
func TestSecretMadeOnce(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	first, err := database.Secret(ctx, db, "webhook_secret_key", 32)
	if err != nil || len(first) != 32 {
		t.Fatalf("first: %d bytes, %v", len(first), err)
	}
	again, err := database.Secret(ctx, db, "webhook_secret_key", 32)
	if err != nil || !bytes.Equal(again, first) {
		t.Fatalf("again: %x, %v; want %x", again, err, first)
	}
	other, err := database.Secret(ctx, db, "cursor_hmac", 16)
	if err != nil || len(other) != 16 || bytes.Equal(other[:16], first[:16]) {
		t.Fatalf("another name: %x, %v", other, err)
	}
}

package database_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// PostgreSQL's answers to a CREATE DATABASE of an existing name are told
// by SQLSTATE, never by their text.
func TestDatabaseExistsBySQLState(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"duplicate_database", &pgconn.PgError{Code: "42P04", Message: `database "x" already exists`}, true},
		{"a concurrent create committed", &pgconn.PgError{Code: "23505", TableName: "pg_database",
			ConstraintName: "pg_database_datname_index"}, true},
		{"wrapped", fmt.Errorf("create: %w", &pgconn.PgError{Code: "42P04"}), true},
		{"unique violation elsewhere", &pgconn.PgError{Code: "23505", TableName: "organizations"}, false},
		{"other error saying already exists", errors.New("role already exists"), false},
		{"permission denied", &pgconn.PgError{Code: "42501", Message: "permission denied to create database"}, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := database.DatabaseExists(tt.err); got != tt.want {
				t.Fatalf("DatabaseExists(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// Several migrators creating the same missing database at once all
// succeed, one of them creating it, under the exact name the URL spells,
// mixed case included.
func TestCreateIfMissingConcurrently(t *testing.T) {
	suffix := fmt.Sprintf("%d_%s", time.Now().Unix(), randomHex(t))
	tests := []struct {
		name   string
		dbName string
	}{
		// Named as pgtest names test databases, so that a run killed
		// before its cleanup leaves one its sweep removes.
		{"lower case", "eventapi_test_create_" + suffix},
		{"mixed case", "eventapi_test_Create_Case_" + suffix},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dbURL := withPath(t, pgtest.AdminURL(), tt.dbName)
			admin := openMigrationPool(t, pgtest.AdminURL())
			t.Cleanup(func() {
				_, _ = admin.NewRaw("DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(tt.dbName)).Exec(context.Background())
			})
			const n = 6
			var wg sync.WaitGroup
			created := make(chan bool, n)
			errc := make(chan error, n)
			for range n {
				wg.Go(func() {
					ok, err := database.CreateIfMissing(context.Background(), dbURL, "none")
					created <- ok
					errc <- err
				})
			}
			wg.Wait()
			close(created)
			close(errc)
			for err := range errc {
				if err != nil {
					t.Errorf("create: %v", err)
				}
			}
			creators := 0
			for ok := range created {
				if ok {
					creators++
				}
			}
			if creators != 1 {
				t.Errorf("%d processes report creating the database, want 1", creators)
			}
			var exact bool
			if err := admin.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", tt.dbName).
				Scan(context.Background(), &exact); err != nil || !exact {
				t.Fatalf("database %q exists: %v %v", tt.dbName, exact, err)
			}
		})
	}
}

// Through the transaction pooler the tests go through (the PgBouncer pass
// of scripts/test.sh; the server itself otherwise), CreateIfMissing connects
// as the pool does: PgBouncer refuses a startup parameter such as
// statement_timeout, which a direct connection sends.
func TestCreateIfMissingThroughThePooler(t *testing.T) {
	server := pgtest.PoolerURL()
	if server == "" {
		server = pgtest.AdminURL()
	}
	name := fmt.Sprintf("eventapi_test_create_pooled_%d_%s", time.Now().Unix(), randomHex(t))
	admin := openMigrationPool(t, pgtest.AdminURL())
	t.Cleanup(func() {
		_, _ = admin.NewRaw("DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name)).Exec(context.Background())
	})
	for _, want := range []bool{true, false} {
		made, err := database.CreateIfMissing(context.Background(), withPath(t, server, name), pgtest.Pooler())
		if err != nil || made != want {
			t.Fatalf("create through %s: %v, %v; want %v", pgtest.Pooler(), made, err, want)
		}
	}
}

func randomHex(t *testing.T) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

func withPath(t *testing.T, raw, name string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

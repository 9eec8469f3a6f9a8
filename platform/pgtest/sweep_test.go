package pgtest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/database"
)

func TestMain(m *testing.M) { Main(m) }

func TestStaleDatabases(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	stamp := func(age time.Duration) string { return databaseName("api_quotes", now.Add(-age)) }
	old, fresh, edge := stamp(StaleAfter+time.Minute), stamp(time.Minute), stamp(StaleAfter)
	tests := []struct {
		name  string
		db    string
		stale bool
	}{
		{"older than StaleAfter", old, true},
		{"created a minute ago", fresh, false},
		{"exactly StaleAfter old", edge, false},
		{"unstamped test database of the old form", "eventapi_test_api_quotes_0123456789ab", false},
		{"another application's database", "eventapi", false},
		{"a stamp with a foreign prefix", "prod_" + old, false},
		{"a stamp with a foreign suffix", old + "_x", false},
		{"the maintenance database", "postgres", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := staleDatabases([]string{tc.db}, now)
			if (len(got) == 1) != tc.stale {
				t.Fatalf("staleDatabases(%q) = %v, want stale=%v", tc.db, got, tc.stale)
			}
		})
	}
	if n := len(databaseName("abcdefghijklmnopqrstuvwx", now)); n > 63 {
		t.Fatalf("a test database name is %d bytes; PostgreSQL keeps 63", n)
	}
}

// TestSweepDropsOnlyStaleUnusedDatabases creates, on the real server, a
// stale test database, a stale one that still has a session, a fresh one and
// an unstamped one: the sweep drops the first only.
func TestSweepDropsOnlyStaleUnusedDatabases(t *testing.T) {
	ctx := context.Background()
	admin, err := database.Open(ctx, AdminURL(), adminOptions(2))
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the cleanups below drop the test's databases (a deferred
	// Close ran before them, and every drop failed: each run left its fresh
	// and unstamped databases behind).
	t.Cleanup(func() { _ = admin.Close() })
	long := time.Now().Add(-StaleAfter - time.Hour)
	stale := databaseName("sweep", long)
	fresh := databaseName("sweep", time.Now())
	unstamped := "eventapi_test_sweep_" + randomSuffix()
	create := func(n string) {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)") })
	}
	for _, n := range []string{stale, fresh, unstamped} {
		create(n)
	}
	// A stale database that still has a session. Until the session is
	// open, another test process's sweep (every package's TestMain runs
	// one) may drop it: then a new one is made.
	var busy string
	for attempt := 1; ; attempt++ {
		busy = databaseName("sweep", long)
		create(busy)
		closeSession, err := openSession(ctx, busy)
		if err == nil {
			defer closeSession()
			break
		}
		if attempt == 5 {
			t.Fatalf("could not hold a session on a stale database: %v", err)
		}
		t.Logf("another sweep dropped %s before its session opened: %v", busy, err)
	}

	// Another test process's sweep may drop the stale database first, so
	// only what is left afterwards is checked.
	dropped, err := SweepStale(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("swept %v", dropped)
	for n, want := range map[string]bool{stale: false, busy: true, fresh: true, unstamped: true} {
		var found string
		err := admin.NewRaw("SELECT datname FROM pg_database WHERE datname = ?", n).Scan(ctx, &found)
		if exists := err == nil; exists != want {
			if err != nil && err != sql.ErrNoRows {
				t.Fatal(err)
			}
			t.Errorf("database %s exists=%v after the sweep, want %v", n, exists, want)
		}
	}
}

// openSession opens one session on the database name and keeps it until
// the returned function closes it.
func openSession(ctx context.Context, name string) (func(), error) {
	url, err := withDatabase(AdminURL(), name)
	if err != nil {
		return nil, err
	}
	db, err := database.Open(ctx, url, database.Options{MaxOpenConns: 1})
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		if err = conn.PingContext(ctx); err != nil {
			_ = conn.Close()
		}
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return func() { _ = conn.Close(); _ = db.Close() }, nil
}

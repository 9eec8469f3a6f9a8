// Package pgtest gives each test package its own freshly created PostgreSQL
// database, migrated to the current schema, and a Redis URL. It never skips:
// when a service is missing, tests fail loudly, as CI must.
//
// Each database is named eventapi_test_<package>_<unix seconds>_<random>.
// The first database a test process creates is preceded by a sweep
// (SweepStale) that drops test databases older than StaleAfter left behind
// by runs that were killed before their cleanup.
//
// The server defaults to the local one (127.0.0.1:5432, user postgres);
// EVENTAPI_TEST_DATABASE_URL points it elsewhere (any database on the server
// works as the admin connection). EVENTAPI_TEST_REDIS_URL likewise for Redis.
//
// EVENTAPI_TEST_POOLER_URL (for example postgres://postgres@127.0.0.1:6432/)
// names a PgBouncer in transaction mode in front of that server: databases
// are still created and migrated directly, but NewDatabase and Open hand out
// URLs through the pooler and Pooler reports "transaction", which apitest
// passes on as EVENTAPI_DATABASE_POOLER (scripts/pgbouncer.sh).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

const defaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL is the URL of the server's maintenance database.
func AdminURL() string {
	if u := os.Getenv("EVENTAPI_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return defaultAdminURL
}

// RedisURL is the Redis used by tests.
func RedisURL() string {
	if u := os.Getenv("EVENTAPI_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// PoolerURL is the transaction pooler the tests go through, or "".
func PoolerURL() string { return os.Getenv("EVENTAPI_TEST_POOLER_URL") }

// Pooler is the EVENTAPI_DATABASE_POOLER mode of the URLs NewDatabase
// returns: "transaction" behind EVENTAPI_TEST_POOLER_URL, else "none".
func Pooler() string {
	if PoolerURL() != "" {
		return database.PoolerTransaction
	}
	return "none"
}

var (
	mu      sync.Mutex
	created = map[string]string{}
)

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// NewDatabase creates an empty database named after the test package and a
// random suffix, migrated to the latest schema, and returns its URL. The
// database is dropped by Cleanup (call it from TestMain) or by the next run's
// sweep of stale test databases.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	u, err := newDatabase(context.Background(), true, "")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// NewEmptyDatabase is NewDatabase without migrations.
func NewEmptyDatabase(tb testing.TB) string {
	tb.Helper()
	u, err := newDatabase(context.Background(), false, "")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// adminOptions are those of a pool that creates and drops test databases.
// DROP DATABASE waits for a checkpoint, which on a machine busy with a whole
// test run took over the pool's default 15 s statement timeout and left a
// stale database behind (a failed sweep test); such a statement gets
// minutes.
func adminOptions(conns int) database.Options {
	return database.Options{MaxOpenConns: conns, StatementTimeout: 5 * time.Minute}
}

// newDatabase creates the database with CREATE DATABASE's options (""
// for the server's defaults) and, with migrate, migrates it.
func newDatabase(ctx context.Context, migrate bool, options string) (string, error) {
	admin, err := database.Open(ctx, AdminURL(), adminOptions(2))
	if err != nil {
		return "", fmt.Errorf("PostgreSQL is required for tests and is not reachable at %s: %w", redact(AdminURL()), err)
	}
	defer admin.Close()
	sweepOnce.Do(func() { sweepStale(ctx, admin, time.Now()) })
	name := databaseName(packageName(), time.Now())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" "+options); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	dbURL, err := withDatabase(AdminURL(), name)
	if err != nil {
		return "", err
	}
	mu.Lock()
	created[name] = dbURL
	mu.Unlock()
	if migrate {
		db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
		if err != nil {
			return "", err
		}
		defer db.Close()
		m, err := database.NewMigrator(db)
		if err != nil {
			return "", err
		}
		if _, err := m.Up(ctx); err != nil {
			return "", err
		}
	}
	if p := PoolerURL(); p != "" {
		return withDatabase(p, name)
	}
	return dbURL, nil
}

// Open returns a bun.DB on a fresh migrated database, closed at test end.
func Open(tb testing.TB) *bun.DB {
	tb.Helper()
	return openURL(tb, NewDatabase(tb))
}

// OpenCLocale is Open on a database whose LC_CTYPE and LC_COLLATE are C,
// as a server may be set up: for the rules that must hold under any
// locale (PostgreSQL's lower() then changes ASCII letters only).
func OpenCLocale(tb testing.TB) *bun.DB {
	tb.Helper()
	u, err := newDatabase(context.Background(), true, "TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return openURL(tb, u)
}

// openURL opens the database at u for a test, closed at its end.
func openURL(tb testing.TB, u string) *bun.DB {
	tb.Helper()
	db, err := database.Open(context.Background(), u, database.Options{MaxOpenConns: 10, Pooler: Pooler()})
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// OpenDirect is Open without the pooler, for tests about one server
// connection's own life (terminating its backend, for example), which a
// transaction pooler hides by design.
func OpenDirect(tb testing.TB) *bun.DB {
	tb.Helper()
	u, err := newDatabase(context.Background(), true, "")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	if PoolerURL() != "" {
		if u, err = withDatabase(AdminURL(), strings.TrimPrefix(mustPath(tb, u), "/")); err != nil {
			tb.Fatalf("pgtest: %v", err)
		}
	}
	db, err := database.Open(context.Background(), u, database.Options{MaxOpenConns: 10})
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

func mustPath(tb testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u.Path
}

// atExit holds what AtExit registered, run by Cleanup.
var atExit []func()

// AtExit registers f to run in Cleanup, once the tests are done: other test
// helpers remove what they made for the whole test binary (apitest's build
// of the server binary) without a TestMain of their own.
func AtExit(f func()) {
	mu.Lock()
	defer mu.Unlock()
	atExit = append(atExit, f)
}

// Cleanup drops the databases this process created and runs what AtExit
// registered. Call it from TestMain after m.Run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	for _, f := range atExit {
		f()
	}
	atExit = nil
	if len(created) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := database.Open(ctx, AdminURL(), adminOptions(1))
	if err != nil {
		return
	}
	defer admin.Close()
	for name := range created {
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		delete(created, name)
	}
}

// Main is a TestMain body: it runs the tests and drops the package's databases.
func Main(m interface{ Run() int }) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

func withDatabase(raw, name string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", redact(raw), err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func packageName() string {
	wd, err := os.Getwd()
	if err != nil {
		return "pkg"
	}
	n := unsafeChars.ReplaceAllString(strings.ToLower(filepath.Base(wd)), "_")
	if len(n) > 24 {
		n = n[:24]
	}
	return n
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}

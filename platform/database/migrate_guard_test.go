package database_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// migrationLockID is database.migrationLockID, which a test holds to make a
// migrator wait.
const migrationLockID = 0x6576656e74617069

// openMigrationPool opens dbURL as the migrate command does (4 connections).
func openMigrationPool(t *testing.T, dbURL string) *bun.DB {
	t.Helper()
	pooler := pgtest.Pooler()
	if sameServer(t, dbURL, pgtest.AdminURL()) {
		pooler = "none" // a direct URL (directURL) in a run behind PgBouncer
	}
	db, err := database.Open(context.Background(), dbURL, database.Options{MaxOpenConns: 4, Pooler: pooler})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// sameServer reports whether the URLs a and b name one host and port.
func sameServer(t *testing.T, a, b string) bool {
	t.Helper()
	ua, err := url.Parse(a)
	if err != nil {
		t.Fatal(err)
	}
	ub, err := url.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return ua.Host == ub.Host
}

// databaseName is the name in dbURL's path.
func databaseName(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// setDatabaseDefault makes value the default of setting for new sessions
// on the database of dbURL, as ALTER ROLE … SET does behind PgBouncer.
func setDatabaseDefault(t *testing.T, dbURL, setting, value string) {
	t.Helper()
	admin := openMigrationPool(t, pgtest.AdminURL())
	if _, err := admin.NewRaw("ALTER DATABASE ? SET "+setting+" = ?", bun.Ident(databaseName(t, dbURL)), value).
		Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A migration sees no timeout however the session was set up: the pool's
// statement_timeout (15 s, sent at connect) and the defaults of the
// database (standing in for the role's, behind PgBouncer) are lifted for
// its transaction, up and down alike.
func TestMigrationsRunWithoutTimeouts(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewEmptyDatabase(t)
	setDatabaseDefault(t, dbURL, "lock_timeout", "1s")
	setDatabaseDefault(t, dbURL, "idle_in_transaction_session_timeout", "1min")
	// Each migration fails unless every timeout reads 0 inside it.
	const check = `DO $$
DECLARE bad text;
BEGIN
    SELECT string_agg(name || ' = ' || setting, ', ') INTO bad FROM pg_settings
    WHERE name IN ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout', 'transaction_timeout')
      AND setting <> '0';
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'a migration runs under %', bad;
    END IF;
END $$;
`
	m, err := database.NewMigratorWith(openMigrationPool(t, dbURL), fstest.MapFS{
		"20200101000000_check_timeouts.tx.up.sql":   {Data: []byte(check)},
		"20200101000000_check_timeouts.tx.down.sql": {Data: []byte(check)},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	if _, err := m.Down(ctx, database.DownTo{All: true}); err != nil {
		t.Fatalf("down: %v", err)
	}
}

// A second migrator waits for the first however long it runs, and says it
// waits: its wait outlasts the timeouts of its session. It waits by trying
// the lock in short transactions (Migrator.lock), so the timeouts can only
// end it if the tries stop being short or the wait moves back into
// PostgreSQL (pg_advisory_xact_lock) without lifting them: what the cases
// guard against.
func TestMigrationLockWaitIsUnbounded(t *testing.T) {
	tests := []struct {
		setting, value string
		waited         time.Duration // how long the wait must outlast
	}{
		{"lock_timeout", "1ms", 100 * time.Millisecond},
		// Long enough for the statements outside the migrations (the
		// migration tables, the records of applied migrations), which run
		// under the session's timeout as any other statement does.
		{"statement_timeout", "500ms", time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.setting, func(t *testing.T) {
			dbURL := pgtest.NewEmptyDatabase(t)
			setDatabaseDefault(t, dbURL, tt.setting, tt.value)
			if tt.setting == "statement_timeout" && pgtest.Pooler() != database.PoolerTransaction {
				// Without a pooler the pool sends its own at connect.
				dbURL = withQuery(t, dbURL, "statement_timeout", strings.TrimSuffix(tt.value, "ms"))
			}
			waitOutTheLock(t, openMigrationPool(t, dbURL), tt.waited)
		})
	}
}

// withQuery is dbURL with the query parameter key set to value.
func withQuery(t *testing.T, dbURL, key, value string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// waitOutTheLock holds the migration lock while a migrator of db starts,
// until the migrator has waited for longer than d, then releases it; the
// migrator must then migrate.
func waitOutTheLock(t *testing.T, db *bun.DB, d time.Duration) {
	ctx := context.Background()
	holder := holdMigrationLock(t, db)
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	done, _ := upUntilNotice(t, ctx, m, "waiting")
	waitForLockWaiter(t, done, d)
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("up after the lock was released: %v", err)
	}
}

// upUntilNotice runs m.Up in the background and returns once m gives its
// first notice, which must contain want; it fails the test if Up ends
// first. done receives Up's result, and notes the later notices.
func upUntilNotice(t *testing.T, ctx context.Context, m *database.Migrator, want string) (done <-chan error, notes <-chan string) {
	t.Helper()
	noticed := make(chan string, 10)
	m.Notify = func(msg string) { noticed <- msg }
	result := make(chan error, 1)
	go func() { _, err := m.Up(ctx); result <- err }()
	select {
	case msg := <-noticed:
		if !strings.Contains(msg, want) {
			t.Fatalf("notice %q, want one saying %q", msg, want)
		}
	case err := <-result:
		t.Fatalf("up returned %v before its notice %q", err, want)
	}
	return result, noticed
}

// holdMigrationLock takes the migration lock in a transaction of db, as a
// running migrator holds it (a transaction keeps its server connection
// behind a transaction pooler too); rolling it back releases the lock.
func holdMigrationLock(t *testing.T, db *bun.DB) bun.Tx {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(context.Background(), "SELECT pg_advisory_xact_lock(?)", int64(migrationLockID)); err != nil {
		t.Fatal(err)
	}
	return tx
}

// waitForLockWaiter returns once the migrator (done) has waited for the
// lock for d, and fails the test if it ends first. The migrator waits by
// trying the lock in short transactions (Migrator.lock), so no session
// waits inside PostgreSQL for pg_locks to show; what the test holds it to
// is not giving up within d.
func waitForLockWaiter(t *testing.T, done <-chan error, d time.Duration) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("up returned %v while another held the lock", err)
	case <-time.After(d):
	}
}

// waitWhileUp returns once query, run on conn, answers true, and fails the
// test if the migrator (done) ends first.
func waitWhileUp(t *testing.T, conn bun.IConn, done <-chan error, what, query string, args ...any) {
	t.Helper()
	for {
		select {
		case err := <-done:
			t.Fatalf("up returned %v before %s", err, what)
		default:
		}
		var yes bool
		if err := conn.QueryRowContext(context.Background(), query, args...).Scan(&yes); err != nil {
			t.Fatal(err)
		}
		if yes {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Status reads the state without the lock and without creating anything:
// it answers while a migrator holds the lock, and a database never
// migrated stays empty, every migration pending.
func TestStatusTakesNoLockAndCreatesNothing(t *testing.T) {
	dbURL := pgtest.NewEmptyDatabase(t)
	db := openMigrationPool(t, dbURL)
	holdMigrationLock(t, db)
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	// The deadline only bounds a failure: a status waiting for the lock.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	known, _ := database.Migrations()
	if len(st) != len(known.Sorted()) {
		t.Fatalf("status lists %d migrations, want %d", len(st), len(known.Sorted()))
	}
	for _, s := range st {
		if s.Applied || s.Unknown {
			t.Errorf("%s: applied %v unknown %v on an empty database", s, s.Applied, s.Unknown)
		}
	}
	var tables int
	if err := db.NewRaw("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("status created %d tables", tables)
	}
}

// newerRelease is a migration this binary does not know, as a newer
// release would ship it.
var newerRelease = fstest.MapFS{
	"20991231000000_newer_release.tx.up.sql":   {Data: []byte("CREATE TABLE newer_release (organization_id uuid REFERENCES organizations (id));\n")},
	"20991231000000_newer_release.tx.down.sql": {Data: []byte("DROP TABLE newer_release;\n")},
}

// olderHotfix is a migration a binary knows that the newer release lacks
// (another branch's).
var olderHotfix = fstest.MapFS{
	"20991230000000_older_hotfix.tx.up.sql":   {Data: []byte("CREATE TABLE older_hotfix (id int);\n")},
	"20991230000000_older_hotfix.tx.down.sql": {Data: []byte("DROP TABLE older_hotfix;\n")},
}

// A database a newer release migrated: this binary's status lists the
// newer migration as applied and unknown, its down refuses without
// touching the schema, its up is a no-op (an old pod of a rolling update
// starting with --migrate), and an up that would add its own migrations on
// top refuses. The newer binary's down then makes it this binary's again.
func TestAnOlderBinaryLeavesANewerSchemaAlone(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, pgtest.NewDatabase(t))
	newer, err := database.NewMigratorWith(db, newerRelease, true)
	if err != nil {
		t.Fatal(err)
	}
	if up, err := newer.Up(ctx); err != nil || len(up) != 1 {
		t.Fatalf("newer up: %v %v", up, err)
	}
	older, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	st, err := older.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last := st[len(st)-1]; last.Name != "20991231000000" || !last.Applied || !last.Unknown {
		t.Fatalf("status ends with %+v, want 20991231000000 applied and unknown", last)
	}
	if s, err := older.Schema(ctx); err != nil || len(s.Pending) != 0 || !slices.Equal(s.Unknown, []string{"20991231000000"}) {
		t.Fatalf("schema = %+v, %v", s, err)
	}
	tests := []struct {
		name    string
		run     func() ([]string, error)
		refused bool
	}{
		{"down", func() ([]string, error) { return older.Down(ctx, database.DownTo{}) }, true},
		{"up with nothing pending", func() ([]string, error) { return older.Up(ctx) }, false},
		{"up with a migration of its own", func() ([]string, error) {
			hotfix, err := database.NewMigratorWith(db, olderHotfix, true)
			if err != nil {
				return nil, err
			}
			return hotfix.Up(ctx)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names, err := tt.run()
			if tt.refused != errors.Is(err, database.ErrNewerSchema) || len(names) != 0 {
				t.Fatalf("ran %v, err %v; want refused %v", names, err, tt.refused)
			}
			if tt.refused && !strings.Contains(err.Error(), "20991231000000") {
				t.Errorf("%v does not name the unknown migration", err)
			}
			if !tableExists(t, db, "newer_release") || !tableExists(t, db, "organizations") || tableExists(t, db, "older_hotfix") {
				t.Fatal("the schema changed")
			}
		})
	}
	if down, err := newer.Down(ctx, database.DownTo{}); err != nil || !slices.Equal(down, []string{"20991231000000_newer_release"}) {
		t.Fatalf("newer down: %v %v", down, err)
	}
	if s, err := older.Schema(ctx); err != nil || len(s.Unknown)+len(s.Pending) != 0 {
		t.Fatalf("after the newer down: %+v %v", s, err)
	}
}

func tableExists(t *testing.T, db *bun.DB, name string) bool {
	t.Helper()
	var ok bool
	if err := db.NewRaw("SELECT to_regclass(?) IS NOT NULL", name).Scan(context.Background(), &ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// Down rolls back the last group, or every migration after the one it is
// told to keep, whatever their groups, or with All every migration; it
// returns them in the order it ran them, newest first, refuses to drop the
// whole schema unless told All, and says before it runs when it rolls back
// every applied migration.
func TestDownRunsNewestFirstAndAnnouncesTheWholeSchema(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, pgtest.NewEmptyDatabase(t))
	m, err := database.NewMigratorWith(db, newerRelease, true)
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	m.Notify = func(msg string) { notices = append(notices, msg) }
	first, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	up, err := first.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	n := len(up)
	tests := []struct {
		name    string
		to      database.DownTo
		want    []string
		refused string
		notice  string
	}{
		{"the last group", database.DownTo{}, []string{"20991231000000_newer_release"}, "", ""},
		{"the only group, the whole schema", database.DownTo{}, nil, "give --all", ""},
		{"to a migration, within a group", database.DownTo{Migration: up[n-3]}, reversed(up[n-2:]), "", ""},
		{"to the newest applied", database.DownTo{Migration: strings.SplitN(up[n-3], "_", 2)[0]}, nil, "", ""},
		{"to a migration never applied", database.DownTo{Migration: up[n-1]}, nil, "no applied migration is named", ""},
		{"all", database.DownTo{All: true}, reversed(up[:n-2]), "", "rolling back all " + strconv.Itoa(n-2) + " applied migrations"},
	}
	for _, tt := range tests {
		notices = nil
		down, err := m.Down(ctx, tt.to)
		if tt.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tt.refused) || len(down) != 0 || !tableExists(t, db, "organizations") {
				t.Fatalf("%s: down = %v, %v; want a refusal saying %q and nothing rolled back", tt.name, down, err, tt.refused)
			}
			continue
		}
		if err != nil || !slices.Equal(down, tt.want) {
			t.Fatalf("%s: down = %v, %v; want %v", tt.name, down, err, tt.want)
		}
		if got := strings.Join(notices, "\n"); (tt.notice == "") != (got == "") || !strings.Contains(got, tt.notice) {
			t.Errorf("%s: notices %q, want %q", tt.name, got, tt.notice)
		}
	}
	if tableExists(t, db, "organizations") {
		t.Error("organizations is left after rolling back all")
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

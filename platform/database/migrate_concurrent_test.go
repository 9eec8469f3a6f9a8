package database_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestParseConcurrent(t *testing.T) {
	tests := []struct {
		name, text string
		plain      []string // nil: refused
	}{
		{"create", "CREATE INDEX CONCURRENTLY IF NOT EXISTS a_idx ON a (b);\n",
			[]string{"CREATE INDEX IF NOT EXISTS a_idx ON a (b)"}},
		{"unique, lower case, comments, spread over lines",
			"-- why the index\ncreate unique index concurrently if not exists a_key\n  on a (b)\n  where b is not null\n",
			[]string{"CREATE unique INDEX IF NOT EXISTS a_key on a (b)\n  where b is not null"}},
		{"drop", "DROP INDEX CONCURRENTLY IF EXISTS a_idx;", []string{"DROP INDEX IF EXISTS a_idx"}},
		{"two sections",
			"CREATE INDEX CONCURRENTLY IF NOT EXISTS a_idx ON a (b);\n--bun:split\nDROP INDEX CONCURRENTLY IF EXISTS old_idx;\n",
			[]string{"CREATE INDEX IF NOT EXISTS a_idx ON a (b)", "DROP INDEX IF EXISTS old_idx"}},
		{"a table", "CREATE TABLE a (b int);", nil},
		{"an index that blocks writes", "CREATE INDEX IF NOT EXISTS a_idx ON a (b);", nil},
		{"without IF NOT EXISTS", "CREATE INDEX CONCURRENTLY a_idx ON a (b);", nil},
		{"a drop without IF EXISTS", "DROP INDEX CONCURRENTLY a_idx;", nil},
		{"a drop that blocks", "DROP INDEX IF EXISTS a_idx;", nil},
		{"two statements in a section",
			"CREATE INDEX CONCURRENTLY IF NOT EXISTS a_idx ON a (b); CREATE INDEX CONCURRENTLY IF NOT EXISTS c_idx ON a (c);", nil},
		{"a quoted name", `CREATE INDEX CONCURRENTLY IF NOT EXISTS "A" ON a (b);`, nil},
		{"a schema-qualified name", "DROP INDEX CONCURRENTLY IF EXISTS public.a_idx;", nil},
		{"nothing", "-- only a comment\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, err := database.ParseConcurrent("20200101000000_x.up.sql", tt.text)
			if tt.plain == nil {
				if err == nil {
					t.Fatalf("accepted as %q", plain)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plain, tt.plain) {
				t.Fatalf("plain forms %q, want %q", plain, tt.plain)
			}
		})
	}
}

// gearTable is a migration making a table to index; gearNameIndex indexes
// it concurrently.
var (
	gearTable = fstest.MapFS{
		"20200101000001_gear.tx.up.sql":   {Data: []byte("CREATE TABLE gear (id serial PRIMARY KEY, name text);\n")},
		"20200101000001_gear.tx.down.sql": {Data: []byte("DROP TABLE gear;\n")},
	}
	gearNameIndex = fstest.MapFS{
		"20200101000002_gear_name.up.sql": {Data: []byte(
			"-- built while the table takes writes\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS gear_name_key ON gear (name);\n")},
		"20200101000002_gear_name.down.sql": {Data: []byte("DROP INDEX CONCURRENTLY IF EXISTS gear_name_key;\n")},
	}
)

// withGear is the migrations of gearTable and gearNameIndex.
func withGear() fstest.MapFS {
	all := fstest.MapFS{}
	for _, m := range []fstest.MapFS{gearTable, gearNameIndex} {
		for k, v := range m {
			all[k] = v
		}
	}
	return all
}

// directURL is dbURL's database on the server itself, not through the
// pooler of a PgBouncer run.
func directURL(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + databaseName(t, dbURL)
	return u.String()
}

// gearMigrator makes the gear table on db and returns a migrator whose
// only pending migration is gearNameIndex, with its notices in notes.
func gearMigrator(t *testing.T, db *bun.DB, pooler string, notes *[]string) *database.Migrator {
	t.Helper()
	first, err := database.NewMigratorWith(db, gearTable, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, err := database.NewMigratorWith(db, withGear(), false)
	if err != nil {
		t.Fatal(err)
	}
	m.Pooler = pooler
	var mu sync.Mutex
	m.Notify = func(msg string) { mu.Lock(); defer mu.Unlock(); *notes = append(*notes, msg) }
	return m
}

// openWriter opens a transaction of db that has written to gear and stays
// open until the test commits it (or ends): a concurrent build of an index
// on gear waits for it.
func openWriter(t *testing.T, db *bun.DB) bun.Tx {
	t.Helper()
	writer, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = writer.Rollback() })
	if _, err := writer.ExecContext(context.Background(), "INSERT INTO gear (name) VALUES ('mixer')"); err != nil {
		t.Fatal(err)
	}
	return writer
}

// A concurrent migration's index is built while the table takes writes: a
// writer's open transaction makes the build wait, and a second writer
// still gets through (a plain CREATE INDEX queues its lock ahead of it). The
// session it ran on goes back to the pool with its timeouts, and down drops
// the index.
func TestConcurrentIndexLetsWritesThrough(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, directURL(t, pgtest.NewEmptyDatabase(t)))
	var notes []string
	m := gearMigrator(t, db, "", &notes)
	writer := openWriter(t, db)
	// Bounded: a build that still waits once the writer has ended waits
	// for a snapshot no one will release (the migration lock's own
	// transaction held one until releaseSnapshot).
	upCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := m.Up(upCtx); done <- err }()
	waitWhileUp(t, db, done, "the index build waiting for the writer", `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE query ILIKE '%INDEX%gear_name_key%' AND wait_event_type = 'Lock' AND datname = current_database())`)

	for _, name := range []string{"truss", "console"} {
		if err := insertWithin(ctx, db, name, 10*time.Second); err != nil {
			t.Fatalf("a write while the index builds: %v", err)
		}
	}
	if err := writer.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("up: %v", err)
	}
	if valid := indexValid(t, db, "gear_name_key"); valid == nil || !*valid {
		t.Fatalf("gear_name_key after up: valid %v", valid)
	}
	if len(notes) != 0 {
		t.Errorf("notices %q on a direct connection with nothing to repair", notes)
	}
	checkPoolTimeouts(t, db)

	if _, err := m.Down(ctx, database.DownTo{Migration: "20200101000001"}); err != nil {
		t.Fatalf("down: %v", err)
	}
	if valid := indexValid(t, db, "gear_name_key"); valid != nil {
		t.Fatalf("gear_name_key after down: valid %v, want gone", *valid)
	}
}

// An index a failed concurrent build left invalid is dropped and built
// again, on a direct connection and behind a transaction pooler alike
// (there without CONCURRENTLY, which Notify says); IF NOT EXISTS alone
// would keep it, unused.
func TestConcurrentIndexRebuildsAnInvalidOne(t *testing.T) {
	for _, pooler := range []string{"", database.PoolerTransaction} {
		t.Run("pooler="+pooler, func(t *testing.T) {
			ctx := context.Background()
			dbURL := pgtest.NewEmptyDatabase(t)
			if pooler == "" {
				dbURL = directURL(t, dbURL)
			}
			db := openMigrationPool(t, dbURL)
			var notes []string
			m := gearMigrator(t, db, pooler, &notes)
			if _, err := db.ExecContext(ctx, "INSERT INTO gear (name) VALUES ('mixer'), ('mixer')"); err != nil {
				t.Fatal(err)
			}
			// A unique build over duplicates fails and leaves the index
			// invalid, as a build killed half way does.
			if _, err := db.ExecContext(ctx, "CREATE UNIQUE INDEX CONCURRENTLY gear_name_key ON gear (name)"); err == nil {
				t.Fatal("a unique index over duplicates was built")
			}
			if valid := indexValid(t, db, "gear_name_key"); valid == nil || *valid {
				t.Fatalf("gear_name_key after the failed build: valid %v, want invalid", valid)
			}
			if _, err := db.ExecContext(ctx, "DELETE FROM gear WHERE id = (SELECT max(id) FROM gear)"); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Up(ctx); err != nil {
				t.Fatalf("up: %v", err)
			}
			if valid := indexValid(t, db, "gear_name_key"); valid == nil || !*valid {
				t.Fatalf("gear_name_key after up: valid %v", valid)
			}
			if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "gear_name_key is invalid") }) {
				t.Errorf("notices %q: none says the invalid index is built again", notes)
			}
			plain := slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "without CONCURRENTLY") })
			if plain != (pooler != "") {
				t.Errorf("notices %q: saying the build is plain %v, want %v", notes, plain, pooler != "")
			}
		})
	}
}

// A migration outside a transaction that does more than build or drop
// indexes concurrently is refused before anything runs.
func TestConcurrentMigrationHoldsOnlyIndexes(t *testing.T) {
	db := openMigrationPool(t, pgtest.NewEmptyDatabase(t))
	_, err := database.NewMigratorWith(db, fstest.MapFS{
		"20200101000001_gear.up.sql": {Data: []byte("CREATE TABLE gear (id int);\n")},
	}, false)
	if err == nil || !strings.Contains(err.Error(), "may only build indexes") {
		t.Fatalf("a table made outside a transaction: %v", err)
	}
}

// insertWithin inserts a gear row in a transaction that waits at most
// limit for a lock.
func insertWithin(ctx context.Context, db *bun.DB, name string, limit time.Duration) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT set_config('lock_timeout', ?, true)", limit.String()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO gear (name) VALUES (?)", name)
		return err
	})
}

// indexValid is whether the index name is valid, or nil when there is none.
func indexValid(t *testing.T, db bun.IDB, name string) *bool {
	t.Helper()
	var valid []bool
	if err := db.NewRaw("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)", name).
		Scan(context.Background(), &valid); err != nil {
		t.Fatal(err)
	}
	if len(valid) == 0 {
		return nil
	}
	return &valid[0]
}

// checkPoolTimeouts holds every connection of db's pool at once and
// fails when one has no statement_timeout: the session a concurrent
// migration lifted it on went back to the pool without it.
func checkPoolTimeouts(t *testing.T, db *bun.DB) {
	t.Helper()
	ctx := context.Background()
	n := db.DB.Stats().MaxOpenConnections
	for range n {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var timeout string
		if err := conn.QueryRowContext(ctx, "SHOW statement_timeout").Scan(&timeout); err != nil {
			t.Fatal(err)
		}
		if timeout == "0" {
			t.Fatalf("a pooled session has statement_timeout 0 after a concurrent migration")
		}
	}
}

// Three migrators started together while another holds the migration lock
// all succeed, and the index is built once: the two that wait while the
// first builds it concurrently wait outside PostgreSQL (Migrator.lock). A
// waiter inside pg_advisory_xact_lock would hold a snapshot the build waits
// for, while the build's migrator holds the lock it waits for: each Up
// then fails at its deadline.
func TestConcurrentMigratorsBuildTheIndexOnce(t *testing.T) {
	ctx := context.Background()
	dbURL := directURL(t, pgtest.NewEmptyDatabase(t))
	var notes []string
	first := gearMigrator(t, openMigrationPool(t, dbURL), "", &notes)
	pool := openMigrationPool(t, dbURL)
	holder := holdMigrationLock(t, pool)

	upCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	type result struct {
		names []string
		err   error
	}
	waiting := make(chan string, 3)
	results := make(chan result, 3)
	for i := range 3 {
		m := first
		if i > 0 {
			var err error
			if m, err = database.NewMigratorWith(openMigrationPool(t, dbURL), withGear(), false); err != nil {
				t.Fatal(err)
			}
		}
		m.Notify = func(msg string) { waiting <- msg }
		go func() { names, err := m.Up(upCtx); results <- result{names, err} }()
	}
	for range 3 {
		select {
		case msg := <-waiting:
			if !strings.Contains(msg, "waiting") {
				t.Fatalf("notice %q, want one saying it waits", msg)
			}
		case r := <-results:
			t.Fatalf("up returned %q, %v while another held the lock", r.names, r.err)
		}
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	var applied []string
	for range 3 {
		r := <-results
		if r.err != nil {
			t.Fatalf("up: %v", r.err)
		}
		applied = append(applied, r.names...)
	}
	if want := []string{"20200101000002_gear_name"}; !slices.Equal(applied, want) {
		t.Fatalf("applied %q in all, want %q once", applied, want)
	}
	if valid := indexValid(t, pool, "gear_name_key"); valid == nil || !*valid {
		t.Fatalf("gear_name_key after up: valid %v", valid)
	}
}

// A build of the index still running in another session (a migrator whose
// process died without cancelling its build) is waited for, not taken for
// a failed one: dropping it under its build ended in "deadlock detected"
// and failed the migration. Once that build ends, the index is valid and
// nothing is built again.
func TestConcurrentIndexWaitsForABuildStillRunning(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, directURL(t, pgtest.NewEmptyDatabase(t)))
	var ignored []string
	m := gearMigrator(t, db, "", &ignored)

	// The orphaned build, held in its first phase by a writer's open
	// transaction.
	writer := openWriter(t, db)
	orphan := make(chan error, 1)
	go func() {
		conn, err := db.Conn(ctx)
		if err == nil {
			defer conn.Close()
			_, err = conn.ExecContext(ctx, "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS gear_name_key ON gear (name)")
		}
		orphan <- err
	}()
	waitWhileUp(t, db, orphan, "the orphaned build waiting for the writer", `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE query ILIKE '%CONCURRENTLY%gear_name_key%' AND wait_event_type = 'Lock' AND datname = current_database())`)

	upCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	done, notes := upUntilNotice(t, upCtx, m, "being built by another session")
	if err := writer.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-orphan; err != nil {
		t.Fatalf("the orphaned build: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("up: %v", err)
	}
	select {
	case n := <-notes:
		t.Errorf("notice after the wait: %q (the index the other session built is valid)", n)
	default:
	}
	if valid := indexValid(t, db, "gear_name_key"); valid == nil || !*valid {
		t.Fatalf("gear_name_key after up: valid %v", valid)
	}
}

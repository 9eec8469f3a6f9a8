package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// runText runs the CLI and returns its stdout lines.
func runText(ctx context.Context, args ...string) ([]string, error) {
	var out, errOut bytes.Buffer
	err := run(ctx, args, &out, &errOut)
	return strings.Split(strings.TrimRight(out.String(), "\n"), "\n"), err
}

// openAdmin opens dbURL for a test's own statements, closed at its end.
func openAdmin(t *testing.T, dbURL string) *bun.DB {
	t.Helper()
	db, err := database.Open(context.Background(), dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func mustExec(t *testing.T, db *bun.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.NewRaw(query, args...).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// migrationNames are this binary's migrations, oldest first.
func migrationNames(t *testing.T) []string {
	t.Helper()
	ms, err := database.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms.Sorted() {
		names = append(names, m.String())
	}
	return names
}

// `migrate down` on a fresh install (one group) refuses to drop the whole
// schema; with --to it rolls back what follows the migration named; with
// --all it says before anything else that it drops the whole schema, then
// names the migrations in the order it ran them, newest first.
func TestMigrateDownWarnsThenListsNewestFirst(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewEmptyDatabase(t))
	ctx := context.Background()
	up, err := runText(ctx, "migrate", "up")
	if err != nil {
		t.Fatal(err)
	}
	names := migrationNames(t)
	if want := prefixed("migrate up: ", names); !slices.Equal(up, want) {
		t.Fatalf("up printed %q, want %q", up, want)
	}
	if down, err := runText(ctx, "migrate", "down"); err == nil || !strings.Contains(err.Error(), "give --all") {
		t.Fatalf("down of the only group printed %q, err %v; want a refusal naming --all", down, err)
	}
	keep := names[len(names)-2]
	down, err := runText(ctx, "migrate", "down", "--to", keep)
	if err != nil || !slices.Equal(down, []string{"migrate down: " + names[len(names)-1]}) {
		t.Fatalf("down --to %s printed %q, %v; want the newest migration only", keep, down, err)
	}
	names = names[:len(names)-1]
	down, err = runText(ctx, "migrate", "down", "--all")
	if err != nil {
		t.Fatal(err)
	}
	warning := fmt.Sprintf("migrate down: warning: rolling back all %d applied migrations, the whole schema", len(names))
	if !strings.HasPrefix(down[0], warning) {
		t.Fatalf("down begins with %q, want %q", down[0], warning)
	}
	slices.Reverse(names)
	if want := prefixed("migrate down: ", names); !slices.Equal(down[1:], want) {
		t.Fatalf("down printed %q, want %q", down[1:], want)
	}
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// A database a newer release migrated (a migration this binary does not
// know recorded as applied): `migrate status` lists it as unknown, `migrate
// down` refuses and names the release's own `migrate down`, and the schema
// stays whole.
func TestMigrateRefusesANewerSchema(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("EVENTAPI_DATABASE_URL", dbURL)
	db := openAdmin(t, dbURL)
	mustExec(t, db, "INSERT INTO schema_migrations (name, group_id) VALUES ('20991231000000', 2)")
	ctx := context.Background()
	st, err := runText(ctx, "migrate", "status")
	if err != nil {
		t.Fatal(err)
	}
	if last := st[len(st)-1]; last != "applied  20991231000000 (unknown to this binary: applied by a newer release)" {
		t.Errorf("status ends with %q", last)
	}
	js, err := runCLI(t, "migrate", "status", "--output", "json")
	ms, _ := js["migrations"].([]any)
	if err != nil || len(ms) == 0 {
		t.Fatalf("status json: %v %v", js, err)
	}
	if last, _ := ms[len(ms)-1].(map[string]any); last["name"] != "20991231000000" || last["unknown"] != true || last["applied"] != true {
		t.Errorf("status json ends with %v", last)
	}
	_, err = runText(ctx, "migrate", "down")
	if err == nil || !strings.Contains(err.Error(), "migrated by a newer release") ||
		!strings.Contains(err.Error(), "20991231000000") || !strings.Contains(err.Error(), "run that release's `eventapi migrate down` first") {
		t.Fatalf("down: %v, want a refusal naming the newer migration", err)
	}
	var orgs bool
	if err := db.NewRaw("SELECT to_regclass('organizations') IS NOT NULL").Scan(ctx, &orgs); err != nil || !orgs {
		t.Fatalf("organizations exists: %v %v", orgs, err)
	}
}

// serve refuses a database without this binary's migrations, naming them
// and the command that applies them, rather than answer /readyz while its
// routes fail.
func TestServeRefusesPendingMigrations(t *testing.T) {
	names := migrationNames(t)
	tests := []struct {
		name    string
		dbURL   func(t *testing.T) string
		message string
	}{
		{"the newest migration pending", func(t *testing.T) string {
			u := pgtest.NewDatabase(t)
			mustExec(t, openAdmin(t, u), "DELETE FROM schema_migrations WHERE name = ?", strings.SplitN(names[len(names)-1], "_", 2)[0])
			return u
		}, "the database lacks 1 of this release's migrations (" + names[len(names)-1] + "): run `eventapi migrate up`"},
		{"an empty database", func(t *testing.T) string { return pgtest.NewEmptyDatabase(t) },
			fmt.Sprintf("the database lacks %d of this release's migrations (%s, ", len(names), names[0])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("EVENTAPI_DATABASE_URL", tt.dbURL(t))
			t.Setenv("EVENTAPI_ADDR", "127.0.0.1:0")
			t.Setenv("EVENTAPI_METRICS_ADDR", "127.0.0.1:0")
			// The deadline only bounds a failure: a serve that started.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := runText(ctx, "serve")
			if err == nil || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("serve: %v, want %q", err, tt.message)
			}
		})
	}
}

// requireSchema passes a current database silently, refuses one with
// pending migrations, a moved one whose feed offset `migrate up` has not
// raised and one whose changes.seq a logical replication left behind,
// naming `eventapi migrate up`, and serves with one warning line one a
// newer release migrated and one that changed clusters (a pg_upgrade does
// too) since `migrate up` last ran.
func TestRequireSchema(t *testing.T) {
	const changes = `WITH o AS (INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'Moved') RETURNING id)
		INSERT INTO clients (id, organization_id, name) SELECT gen_random_uuid(), id, 'Recorded' FROM o`
	tests := []struct {
		name    string
		setup   []string
		refused string
		warning string
	}{
		{"current", nil, "", ""},
		{"pending", []string{"DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations)"},
			"the database lacks 1 of this release's migrations", ""},
		// An endpoint's cursor restored from a cluster whose transaction
		// counter was far ahead (docs/changes.md, "A moved database").
		{"moved", []string{`WITH o AS (INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'Moved') RETURNING id)
			INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, feed_position)
			SELECT gen_random_uuid(), id, 'https://example.com/hook', '{*}', '\x00', '1000000000000'::xid8 FROM o`},
			"the change feed's stored positions reach 1000000000000", ""},
		// Logical replication copies rows, not sequences.
		{"sequence behind", []string{changes, "ALTER TABLE changes ALTER COLUMN seq RESTART WITH 1"},
			"the sequence public.changes_seq_seq is behind its column changes.seq", ""},
		{"another cluster", []string{changes, "UPDATE feed_cluster SET system_identifier = system_identifier # 1"}, "",
			"the database's PostgreSQL cluster changed since `eventapi migrate up` last ran"},
		{"newer", []string{"INSERT INTO schema_migrations (name, group_id) VALUES ('20991231000000', 2)"}, "",
			"the database was migrated by a newer release (applied migrations unknown to this binary: 20991231000000): serving on its schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openAdmin(t, pgtest.NewDatabase(t))
			for _, q := range tt.setup {
				mustExec(t, db, q)
			}
			m, err := database.NewMigrator(db)
			if err != nil {
				t.Fatal(err)
			}
			var logged bytes.Buffer
			err = requireSchema(context.Background(), m, telemetry.NewLogger(&logged, "info"))
			if tt.refused == "" && err != nil || tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused) ||
				!strings.Contains(err.Error(), "run `eventapi migrate up`")) {
				t.Fatalf("err = %v, want refused with %q, naming `eventapi migrate up`", err, tt.refused)
			}
			lines := strings.Count(logged.String(), "\n")
			if tt.warning == "" && lines != 0 || tt.warning != "" && (lines != 1 || !strings.Contains(logged.String(), tt.warning)) {
				t.Errorf("logged %q, want %q", logged.String(), tt.warning)
			}
		})
	}
}

// Three `migrate up --create-database` at once on a missing database whose
// name has capitals all succeed, one of them creating it under that exact
// name.
func TestMigrateCreatesTheDatabaseOnceByItsExactName(t *testing.T) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("eventapi_test_Probe_Case_%d_%s", time.Now().Unix(), hex.EncodeToString(b[:]))
	admin := openAdmin(t, pgtest.AdminURL())
	t.Cleanup(func() {
		_, _ = admin.NewRaw("DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name)).Exec(context.Background())
	})
	u, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	t.Setenv("EVENTAPI_DATABASE_URL", u.String())
	const n = 3
	outs := make([][]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { outs[i], errs[i] = runText(context.Background(), "migrate", "up", "--create-database") })
	}
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("process %d: %v", i, errs[i])
		}
		if slices.Contains(outs[i], "created database") {
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d processes created the database, want 1", created)
	}
	var tables int
	db := openAdmin(t, u.String())
	if err := db.NewRaw("SELECT count(*) FROM information_schema.tables WHERE table_name = 'organizations'").
		Scan(context.Background(), &tables); err != nil || tables != 1 {
		t.Fatalf("%q holds %d organizations tables (%v)", name, tables, err)
	}
}

package database_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// counterMigrations creates a counter at 0, then adds 1 to it: a data
// migration, which nothing but its record keeps from running twice.
var counterMigrations = fstest.MapFS{
	"20200101000001_counter.tx.up.sql":     {Data: []byte("CREATE TABLE counter (n int NOT NULL);\nINSERT INTO counter VALUES (0);\n")},
	"20200101000001_counter.tx.down.sql":   {Data: []byte("DROP TABLE counter;\n")},
	"20200101000002_increment.tx.up.sql":   {Data: []byte("UPDATE counter SET n = n + 1;\n")},
	"20200101000002_increment.tx.down.sql": {Data: []byte("UPDATE counter SET n = n - 1;\n")},
}

// isBunsRecord reports whether e is bun's own write of a migration's
// record, which it makes after the migration's transaction committed.
func isBunsRecord(e *bun.QueryEvent) bool {
	switch e.IQuery.(type) {
	case *bun.InsertQuery, *bun.DeleteQuery:
		return strings.Contains(e.Query, "schema_migrations")
	}
	return false
}

// migrationStates is each migration's name and whether it is applied.
func migrationStates(t *testing.T, m *database.Migrator) []string {
	t.Helper()
	st, err := m.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range st {
		state := "pending"
		if s.Applied {
			state = "applied"
		}
		out = append(out, s.Comment+" "+state)
	}
	return out
}

func counterValue(t *testing.T, db *bun.DB) int {
	t.Helper()
	var n int
	if err := db.NewRaw("SELECT n FROM counter").Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A migration and its record commit together. Bun's own record, written
// after the migration's transaction commits, is lost here as it would be
// if the process died right then: the migration still counts as applied
// (or, rolled back, as pending), so the next run neither applies it again
// nor rolls it back twice.
func TestAMigrationCommitsWithItsRecord(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, pgtest.NewEmptyDatabase(t))
	var lose atomic.Bool
	hooked := db.WithQueryHook(pgtest.BeforeQuery(func(ctx context.Context, e *bun.QueryEvent) context.Context {
		if lose.Load() && isBunsRecord(e) {
			lost, cancel := context.WithCancel(ctx)
			cancel()
			return lost
		}
		return ctx
	}))
	m, err := database.NewMigratorWith(hooked, counterMigrations, false)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		run    func() ([]string, error)
		lose   bool
		states []string
		n      int
	}{
		{"up, bun's record lost", func() ([]string, error) { return m.Up(ctx) }, true,
			[]string{"counter applied", "increment pending"}, 0},
		{"up again", func() ([]string, error) { return m.Up(ctx) }, false,
			[]string{"counter applied", "increment applied"}, 1},
		{"down, bun's removal lost", func() ([]string, error) { return m.Down(ctx, database.DownTo{All: true}) }, true,
			[]string{"counter applied", "increment pending"}, 0},
		{"up after the lost removal", func() ([]string, error) { return m.Up(ctx) }, false,
			[]string{"counter applied", "increment applied"}, 1},
	}
	for _, s := range steps {
		lose.Store(s.lose)
		_, err := s.run()
		lose.Store(false)
		if s.lose != (err != nil) {
			t.Fatalf("%s: err %v, want an error %v", s.name, err, s.lose)
		}
		if got := migrationStates(t, m); !slices.Equal(got, s.states) {
			t.Fatalf("%s: migrations %v, want %v", s.name, got, s.states)
		}
		if got := counterValue(t, db); got != s.n {
			t.Fatalf("%s: counter %d, want %d (a migration ran twice or not at all)", s.name, got, s.n)
		}
	}
}

// Two migrators that both run a migration (the first's lock lost behind a
// pooler) commit its changes once: the second's record collides with the
// first's in its own transaction, which rolls back, and it says why.
func TestAMigrationCommitsOnceWhenTwoRunIt(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, pgtest.NewEmptyDatabase(t))
	var other atomic.Bool
	hooked := db.WithQueryHook(pgtest.BeforeQuery(func(ctx context.Context, e *bun.QueryEvent) context.Context {
		if strings.HasPrefix(e.Query, "UPDATE counter") && other.CompareAndSwap(true, false) {
			// The other migrator applies the increment and records it,
			// between this one's reading of the state and its update.
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				if _, err := tx.ExecContext(ctx, "UPDATE counter SET n = n + 1"); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (name, group_id) VALUES ('20200101000002', 2)")
				return err
			}); err != nil {
				t.Errorf("the other migrator: %v", err)
			}
		}
		return ctx
	}))
	m, err := database.NewMigratorWith(hooked, counterMigrations, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Down(ctx, database.DownTo{All: true}); err != nil {
		t.Fatal(err)
	}
	other.Store(true)
	if _, err := m.Up(ctx); !errors.Is(err, database.ErrMigratedMeanwhile) {
		t.Fatalf("up: %v, want ErrMigratedMeanwhile", err)
	}
	if got := counterValue(t, db); got != 1 {
		t.Fatalf("counter %d, want 1: the increment committed twice", got)
	}
	if got, want := migrationStates(t, m), []string{"counter applied", "increment applied"}; !slices.Equal(got, want) {
		t.Fatalf("migrations %v, want %v", got, want)
	}
}

package webhooks_test

import (
	"context"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// migrationCase is a test of one migration on a database of its own: it
// rolls the schema back to before the migration, writes the rows the
// migration will find, applies it again and reads what it made of them.
type migrationCase struct {
	t      *testing.T
	ctx    context.Context
	db     *bun.DB
	m      *database.Migrator
	before string // the last migration kept when rolled back
	name   string // the migration under test
}

// rollBackBefore opens a fresh database and rolls it back to before, which
// must roll back name (later migrations, if any, go with it).
func rollBackBefore(t *testing.T, before, name string) *migrationCase {
	t.Helper()
	db := pgtest.OpenDirect(t)
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	c := &migrationCase{t: t, ctx: context.Background(), db: db, m: m, before: before, name: name}
	if down, err := m.Down(c.ctx, database.DownTo{Migration: before}); err != nil || !slices.Contains(down, name) {
		t.Fatalf("down to %s: %v %v, want %s among them", before, down, err, name)
	}
	return c
}

// exec runs a statement or fails the test.
func (c *migrationCase) exec(query string, args ...any) {
	c.t.Helper()
	if _, err := c.db.NewRaw(query, args...).Exec(c.ctx); err != nil {
		c.t.Fatal(err)
	}
}

// up applies the migration again, with every later one.
func (c *migrationCase) up() {
	c.t.Helper()
	if up, err := c.m.Up(c.ctx); err != nil || !slices.Contains(up, c.name) {
		c.t.Fatalf("up: %v %v, want %s among them", up, err, c.name)
	}
}

// downDropsColumns rolls the migration back, checks that none of the
// named columns of table is left, and applies every migration again.
func (c *migrationCase) downDropsColumns(table string, columns ...string) {
	c.t.Helper()
	if _, err := c.m.Down(c.ctx, database.DownTo{Migration: c.before}); err != nil {
		c.t.Fatal(err)
	}
	var left int
	if err := c.db.NewRaw(`SELECT count(*) FROM information_schema.columns WHERE table_name = ? AND column_name IN (?)`,
		table, bun.List(columns)).Scan(c.ctx, &left); err != nil || left != 0 {
		c.t.Fatalf("after down: %d of the columns %v of %s left (%v), want none", left, columns, table, err)
	}
	if _, err := c.m.Up(c.ctx); err != nil {
		c.t.Fatal(err)
	}
}

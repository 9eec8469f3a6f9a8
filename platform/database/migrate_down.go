package database

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// Rolling migrations back: the last group, down to a named migration, or
// the whole schema.

// DownTo says how far Down rolls back.
type DownTo struct {
	// Migration, when set, is the newest migration to keep (its name, such
	// as 20261202180100, or its file name stem): every applied migration
	// named after it is rolled back, however many migrate ups applied them.
	Migration string
	// All rolls back every applied migration, the whole schema.
	All bool
}

// ErrWholeSchema marks a refusal to roll back every applied migration
// without DownTo.All.
var ErrWholeSchema = errors.New("the rollback would drop the whole schema")

// Down rolls back the applied migrations to reach to and returns the names
// rolled back, in the order they ran (newest first). Without a target it
// rolls back the last applied group (one migrate up that applied
// something), and refuses when that group holds every applied migration (a
// fresh install's only group) unless to.All is set. With a target, the
// migrations to roll back are first made the last group, so that bun rolls
// back exactly them (docs/decisions.md, "Database"). It refuses a database
// that holds migrations this binary does not know: bun would roll back the
// last group it knows, older than theirs, and drop what they build on.
// Before rolling back every applied migration it says so through Notify.
func (m *Migrator) Down(ctx context.Context, to DownTo) ([]string, error) {
	if to.All && to.Migration != "" {
		return nil, errors.New("migrate down: give a migration to keep or all, not both")
	}
	var names []string
	err := m.locked(ctx, func(ctx context.Context) error {
		st, err := m.statuses(ctx)
		if err != nil {
			return err
		}
		if u := schemaOf(st).Unknown; len(u) > 0 {
			return newerSchema("migrate down", u, ": run that release's `eventapi migrate down` first, until none is left")
		}
		newer, err := rollbackSet(st, to)
		if err != nil || (newer != nil && len(newer) == 0) {
			return err
		}
		if newer != nil {
			if err := m.regroup(ctx, newer); err != nil {
				return err
			}
		}
		// A bare down whose group is the whole schema was refused above.
		if applied := countApplied(st); applied > 0 && len(newer) == applied {
			m.notify(fmt.Sprintf("warning: rolling back all %d applied migrations, the whole schema: every table is dropped with its data", applied))
		}
		g, err := m.m.Rollback(ctx)
		if err != nil {
			return fmt.Errorf("migrate down: %w", err)
		}
		for i := len(g.Migrations) - 1; i >= 0; i-- {
			names = append(names, g.Migrations[i].String())
		}
		return nil
	})
	return names, err
}

// rollbackSet names the applied migrations that to rolls back when they are
// not simply the last group: those after to.Migration, or all of them for
// to.All (an empty, non-nil slice when there are none). It is nil for the
// last group, which it refuses when that is every applied migration.
func rollbackSet(st []MigrationStatus, to DownTo) ([]string, error) {
	var applied []string
	keep := -1
	for _, s := range st {
		if !s.Applied {
			continue
		}
		if to.Migration != "" && (s.Name == to.Migration || s.String() == to.Migration) {
			keep = len(applied)
		}
		applied = append(applied, s.Name)
	}
	switch {
	case to.All:
		return append([]string{}, applied...), nil
	case to.Migration != "":
		if keep < 0 {
			return nil, fmt.Errorf("migrate down: no applied migration is named %q (`eventapi migrate status` lists them)", to.Migration)
		}
		return append([]string{}, applied[keep+1:]...), nil
	case lastGroupIsAll(st):
		return nil, fmt.Errorf("migrate down: %w: the last group holds all %d applied migrations; "+
			"give --all to drop every table with its data, or --to the newest migration to keep", ErrWholeSchema, len(applied))
	}
	return nil, nil
}

// regroup makes the applied migrations names the last group, for bun's
// Rollback, which rolls back the last group, to roll back exactly them.
func (m *Migrator) regroup(ctx context.Context, names []string) error {
	_, err := m.db.NewRaw(`UPDATE ? SET group_id = (SELECT coalesce(max(group_id), 0) + 1 FROM ?) WHERE name IN (?)`,
		bun.Ident(migrationsTable), bun.Ident(migrationsTable), bun.List(names)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("migrate down: regroup the migrations to roll back: %w", err)
	}
	return nil
}

// countApplied is how many migrations st records as applied.
func countApplied(st []MigrationStatus) int {
	n := 0
	for _, s := range st {
		if s.Applied {
			n++
		}
	}
	return n
}

// lastGroupIsAll reports whether the last applied group holds every
// applied migration.
func lastGroupIsAll(st []MigrationStatus) bool {
	var applied, last int
	var lastGroup int64
	for _, s := range st {
		if !s.Applied {
			continue
		}
		applied++
		switch {
		case s.GroupID > lastGroup:
			lastGroup, last = s.GroupID, 1
		case s.GroupID == lastGroup:
			last++
		}
	}
	return applied > 0 && last == applied
}

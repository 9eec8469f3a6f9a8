package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
)

func migrateCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, output := newFlags("migrate up|down|status")
	create := fs.Bool("create-database", false, "create the database named in EVENTAPI_DATABASE_URL if it does not exist "+
		"(with --output json, \"created\" says whether it did)")
	to := fs.String("to", "", "down: the newest `MIGRATION` to keep (its name or number, as migrate status lists it); "+
		"every applied migration after it is rolled back")
	all := fs.Bool("all", false, "down: roll back every applied migration, dropping every table with its data")
	pos, err := parse(fs, output, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "up" && pos[0] != "down" && pos[0] != "status") {
		return fmt.Errorf("%w: migrate up [--create-database] | down [--to MIGRATION | --all] | status", errUsage)
	}
	set := given(fs)
	switch {
	case pos[0] != "down" && (set["to"] || set["all"]):
		return fmt.Errorf("%w: --to and --all are for migrate down", errUsage)
	case set["to"] && *to == "":
		return fmt.Errorf("%w: --to: must name a migration", errUsage)
	case set["to"] && *all:
		return fmt.Errorf("%w: give --to or --all, not both", errUsage)
	}
	// created is reported in JSON when --create-database was given: true
	// when this run created the database, false when it was there.
	var created *bool
	if *create {
		cfg, err := config.Load()
		if err != nil {
			return fmt.Errorf("configuration:\n%w", err)
		}
		made, err := database.CreateIfMissing(ctx, cfg.MigrationURL(), migrationPooler(cfg))
		if err != nil {
			return directURLRefused(cfg, err)
		}
		created = &made
		if made && *output == "text" {
			fmt.Fprintln(stdout, "created database")
		}
	}
	cfg, err := config.Load()
	if err != nil {
		return fmt.Errorf("configuration:\n%w", err)
	}
	opt := database.Options{MaxOpenConns: 4, Pooler: migrationPooler(cfg)}
	return directURLRefused(cfg, withMigrator(ctx, cfg.MigrationURL(), opt, func(m *database.Migrator) error {
		if pos[0] == "status" {
			return printStatus(ctx, m, *output, created, stdout)
		}
		return runMigrations(ctx, m, pos[0], database.DownTo{Migration: *to, All: *all}, *output, created, stdout)
	}))
}

// withMigrator opens the database at url with opt and calls f with a
// migrator over it; the database is closed when f returns.
// A notice a migration raises reaches the migrator's Notify, as what the
// migrator announces does.
func withMigrator(ctx context.Context, url string, opt database.Options, f func(*database.Migrator) error) error {
	var m *database.Migrator
	opt.OnNotice = func(msg string) {
		if m != nil && m.Notify != nil {
			m.Notify(msg)
		}
	}
	db, err := database.Open(ctx, url, opt)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err = database.NewMigrator(db)
	if err != nil {
		return err
	}
	m.Pooler = opt.Pooler
	return f(m)
}

// runMigrations runs `migrate up` or `migrate down` (direction, as far as
// to) and prints
// the migrations run, in the order they ran (down: newest first). What the
// migrator announces before it acts (a wait for another migrator, a
// rollback of the whole schema) is printed at once in text, so that it
// comes before the work, and listed under "notices" in JSON, with
// "created" when created is set (--create-database).
func runMigrations(ctx context.Context, m *database.Migrator, direction string, to database.DownTo, output string, created *bool, stdout io.Writer) error {
	var notices []string
	m.Notify = func(msg string) {
		if output == "json" {
			notices = append(notices, msg)
			return
		}
		fmt.Fprintf(stdout, "migrate %s: %s\n", direction, msg)
	}
	run := m.Up
	if direction == "down" {
		run = func(ctx context.Context) ([]string, error) { return m.Down(ctx, to) }
	}
	names, err := run(ctx)
	if err != nil {
		return err
	}
	if output == "json" {
		out := map[string]any{"direction": direction, "migrations": nonNil(names)}
		if len(notices) > 0 {
			out["notices"] = notices
		}
		return printJSON(stdout, withCreated(out, created))
	}
	if len(names) == 0 {
		fmt.Fprintf(stdout, "migrate %s: nothing to do\n", direction)
	}
	for _, n := range names {
		fmt.Fprintf(stdout, "migrate %s: %s\n", direction, n)
	}
	return nil
}

// printStatus prints every migration with its state: applied, pending, or
// applied but unknown to this binary (a newer release applied it; see
// docs/helm.md, "Upgrades and migrations"), and in JSON "created" when
// created is set.
func printStatus(ctx context.Context, m *database.Migrator, output string, created *bool, stdout io.Writer) error {
	st, err := m.Status(ctx)
	if err != nil {
		return err
	}
	if output == "json" {
		return printJSON(stdout, withCreated(map[string]any{"migrations": st}, created))
	}
	for _, s := range st {
		fmt.Fprintf(stdout, "%-8s %s%s\n", statusState(s), s, statusNote(s))
	}
	return nil
}

// withCreated adds "created" to a JSON reply when --create-database was
// given, as the text output's "created database" line does.
func withCreated(out map[string]any, created *bool) map[string]any {
	if created != nil {
		out["created"] = *created
	}
	return out
}

// statusState is the first column of `migrate status`.
func statusState(s database.MigrationStatus) string {
	if s.Applied {
		return "applied"
	}
	return "pending"
}

// statusNote follows a migration unknown to this binary.
func statusNote(s database.MigrationStatus) string {
	if s.Unknown {
		return " (unknown to this binary: applied by a newer release)"
	}
	return ""
}

// directURLRefused says what to change when the direct migration URL
// reaches a pooler: the pooler setting does not apply to it, so the
// database's own hint (set EVENTAPI_DATABASE_POOLER) would not help.
func directURLRefused(cfg config.Config, err error) error {
	var r *database.RefusedParameter
	if cfg.MigrateDatabaseURL == "" || !errors.As(err, &r) {
		return err
	}
	return fmt.Errorf("EVENTAPI_MIGRATE_DATABASE_URL must reach PostgreSQL directly: the server it names refused the startup parameter %s, "+
		"as a transaction pooler such as PgBouncer does (docs/helm.md): %w", r.Param, r.Err)
}

// migrationPooler is the pooler between migrations and PostgreSQL: none on
// the direct URL, else the service's own.
func migrationPooler(cfg config.Config) string {
	if cfg.MigrateDatabaseURL != "" {
		return config.PoolerNone
	}
	return cfg.DatabasePooler
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

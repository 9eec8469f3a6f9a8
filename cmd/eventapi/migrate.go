package main

import (
	"context"
	"fmt"
	"io"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
)

func migrateCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, output := newFlags("migrate up|down|status")
	create := fs.Bool("create-database", false, "create the database named in EVENTAPI_DATABASE_URL if it does not exist")
	pos, err := parse(fs, output, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "up" && pos[0] != "down" && pos[0] != "status") {
		return fmt.Errorf("%w: migrate up|down|status", errUsage)
	}
	if *create {
		cfg, err := config.Load()
		if err != nil {
			return fmt.Errorf("configuration:\n%w", err)
		}
		created, err := database.CreateIfMissing(ctx, cfg.MigrationURL())
		if err != nil {
			return err
		}
		if created && *output == "text" {
			fmt.Fprintln(stdout, "created database")
		}
	}
	db, err := openMigrationDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := database.NewMigrator(db)
	if err != nil {
		return err
	}
	switch pos[0] {
	case "up", "down":
		var names []string
		if pos[0] == "up" {
			names, err = m.Up(ctx)
		} else {
			names, err = m.Down(ctx)
		}
		if err != nil {
			return err
		}
		if *output == "json" {
			return printJSON(stdout, map[string]any{"direction": pos[0], "migrations": nonNil(names)})
		}
		if len(names) == 0 {
			fmt.Fprintf(stdout, "migrate %s: nothing to do\n", pos[0])
		}
		for _, n := range names {
			fmt.Fprintf(stdout, "migrate %s: %s\n", pos[0], n)
		}
		return nil
	}
	st, err := m.Status(ctx)
	if err != nil {
		return err
	}
	if *output == "json" {
		return printJSON(stdout, map[string]any{"migrations": st})
	}
	for _, s := range st {
		state := "pending"
		if s.Applied {
			state = "applied"
		}
		fmt.Fprintf(stdout, "%-8s %s_%s\n", state, s.Name, s.Comment)
	}
	return nil
}

// openMigrationDB connects to EVENTAPI_MIGRATE_DATABASE_URL when it is set,
// else to EVENTAPI_DATABASE_URL.
func openMigrationDB(ctx context.Context) (*bun.DB, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, fmt.Errorf("configuration:\n%w", err)
	}
	return database.Open(ctx, cfg.MigrationURL(), database.Options{MaxOpenConns: 4, Pooler: migrationPooler(cfg)})
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

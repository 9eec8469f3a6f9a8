package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
)

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	output := fs.String("output", "text", "output format: text or json")
	return fs, output
}

// parse parses args (flags may follow positional arguments) and checks --output.
func parse(fs *flag.FlagSet, output *string, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if *output != "text" && *output != "json" {
		return nil, fmt.Errorf("%w: --output must be text or json", errUsage)
	}
	return positional, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// openDB loads the configuration and connects to PostgreSQL.
func openDB(ctx context.Context) (*bun.DB, config.Config, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, cfg, fmt.Errorf("configuration:\n%w", err)
	}
	db, err := database.Open(ctx, cfg.DatabaseURL, database.Options{MaxOpenConns: 4, Pooler: cfg.DatabasePooler})
	return db, cfg, err
}

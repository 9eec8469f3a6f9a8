// Command eventapi is the eventapi service and its admin tool:
//
//	eventapi serve [--migrate] [--check]
//	eventapi migrate up|status [--create-database]
//	eventapi migrate down [--to MIGRATION | --all]
//	eventapi orgs create --name N [--sandbox-of ID] [--stock-guard block|warn|off] [--rate-limit N]
//	eventapi orgs update ORG_ID [--name N] [--stock-guard block|warn|off] [--rate-limit N]
//	eventapi orgs list
//	eventapi keys create --org ID --name N --scopes a,b|all [--mode live|test|legacy] [--expires RFC3339]
//	eventapi keys list --org ID
//	eventapi keys revoke KEY_ID
//	eventapi requests list --org ID [--since 24h|RFC3339] [--status 429|4xx] ...
//	eventapi demo [--name N]
//
// Every command lists its flags with --help. Admin commands take --output
// json to print one JSON object on stdout.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eventapi/eventapi/platform/errs"
)

const usage = `usage: eventapi <command> [flags]

commands:
  serve                     run the HTTP API
  migrate up|down|status    manage the database schema (down rolls back the last up that applied
                            something, --to MIGRATION all after it, --all the whole schema; data included)
  orgs create|update|list   manage organizations
  keys create|list|revoke   manage API keys
  requests list             read an organization's request log
  demo                      seed a demo organization and print keys

configuration comes from the environment (EVENTAPI_DATABASE_URL, EVENTAPI_REDIS_URL,
EVENTAPI_ADDR, OTEL_*); see README.md.
`

// errUsage marks a bad invocation: exit status 2.
var errUsage = errors.New("usage")

func main() {
	// A write to a closed stdout or stderr (`eventapi keys create | head -c0`)
	// must fail with EPIPE, so that the command reports the failed output
	// (exit 1) and revokes a key nobody saw (README.md, Admin CLI). Without a
	// Notify for SIGPIPE, the runtime kills the process at such a write on
	// fd 1 or 2 (exit 141) before any of that runs; with one, the write fails
	// and the signal goes to the channel, which nobody needs to read.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "eventapi:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "eventapi:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	out := &checkedWriter{w: stdout}
	err := command(ctx, args, out, stderr)
	if help, ok := errors.AsType[helpText](err); ok {
		_, err = io.WriteString(out, string(help))
	}
	// Output that could not be written (a full disk, a closed pipe) is a
	// failure, whatever the command did: its result reached no one.
	if err == nil && out.err != nil {
		err = fmt.Errorf("writing the output: %w", out.err)
	}
	return badValue(unmigrated(err))
}

// badValue turns a value the service's rules refuse (a validation error
// naming a field, such as a blank or too long --name) into a usage error
// naming the flag: exit 2, like any other bad argument.
func badValue(err error) error {
	if err == nil || !errs.Is(err, errs.Validation) {
		return err
	}
	fields := errs.Issues(err)
	if len(fields) == 0 {
		return fmt.Errorf("%w: %s", errUsage, errs.As(err).Message)
	}
	issues := make([]string, len(fields))
	for i, f := range fields {
		issues[i] = "--" + strings.ReplaceAll(f.Field, "_", "-") + ": " + f.Issue
	}
	return fmt.Errorf("%w: %s", errUsage, strings.Join(issues, "; "))
}

// unmigrated says what to do when a command met a database without the
// service's tables (PostgreSQL's undefined_table) or no database of its
// name at all (invalid_catalog_name), instead of the bare server message.
func unmigrated(err error) error {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	switch {
	case ok && pe.Code == pgerrcode.UndefinedTable:
		return fmt.Errorf("the database lacks the service's tables (%s): run `eventapi migrate up` against it first", pe.Message)
	case ok && pe.Code == pgerrcode.InvalidCatalogName:
		return fmt.Errorf("%s: run `eventapi migrate up --create-database` to create and migrate it", pe.Message)
	}
	return err
}

func command(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: a command is required", errUsage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serveCmd(ctx, rest, stderr)
	case "migrate":
		return migrateCmd(ctx, rest, stdout)
	case "orgs":
		return orgsCmd(ctx, rest, stdout)
	case "keys":
		return keysCmd(ctx, rest, stdout)
	case "requests":
		return requestsCmd(ctx, rest, stdout)
	case "demo":
		return demoCmd(ctx, rest, stdout)
	case "help", "-h", "--help":
		return helpText(usage)
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
}

// checkedWriter keeps the first error of the writes made through it, so
// that a command whose text output failed does not exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

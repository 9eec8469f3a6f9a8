package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// newFlags returns a subcommand's flag set. The flag package prints
// nothing: parse answers --help and reports a bad flag itself.
func newFlags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	output := fs.String("output", "text", "output format: text or json")
	return fs, output
}

// newFlagsNoOutput is newFlags for a command that prints no result (serve,
// whose log is JSON lines whatever it is given): it has no --output, so
// `--output json` is refused as an unknown flag rather than ignored. The
// returned output is "text", for parse.
func newFlagsNoOutput(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	text := "text"
	return fs, &text
}

// helpText is the answer to --help (or -h): run prints it on stdout and
// exits 0.
type helpText string

func (h helpText) Error() string { return string(h) }

// parse parses args (flags may follow positional arguments) and checks
// --output. A flag it cannot parse is a usage error followed by the flag list.
func parse(fs *flag.FlagSet, output *string, args []string) ([]string, error) {
	return parseListing(fs, output, args, all)
}

// parseNoArgs is parse for a command that takes flags only: a stray
// argument (`demo "My House"` for `demo --name "My House"`) is a usage
// error, before the command does anything.
func parseNoArgs(fs *flag.FlagSet, output *string, args []string) error {
	pos, err := parse(fs, output, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("%w: %s takes no arguments, only flags (got %q)\n\n%s", errUsage, fs.Name(), pos[0], flagList(fs, all))
	}
	return err
}

// operands names the positional arguments of the commands that take one.
var operands = map[string]string{"keys revoke": "KEY_ID", "orgs update": "ORG_ID"}

// synopsis is a command's name followed by its positional arguments, as
// its --help shows them.
func synopsis(command string) string {
	if o := operands[command]; o != "" {
		return command + " " + o
	}
	return command
}

// all lists every flag.
func all(string) bool { return true }

// parseOwn parses the arguments of one command of a group (keys, orgs),
// whose commands declare their flags on one set: --help and a bad flag list
// only the flags the command reads (and --output), and a flag of the set it
// does not read is refused by name (onlyFlags).
func parseOwn(fs *flag.FlagSet, output *string, args []string, reads []string) ([]string, error) {
	own := func(name string) bool { return name == "output" || slices.Contains(reads, name) }
	pos, err := parseListing(fs, output, args, own)
	if err != nil {
		return nil, err
	}
	return pos, onlyFlags(fs, reads...)
}

// parseListing is parse, listing the flags for which listed is true.
func parseListing(fs *flag.FlagSet, output *string, args []string, listed func(string) bool) ([]string, error) {
	var positional []string
	help := helpText(fmt.Sprintf("usage: eventapi %s [flags]\n\n%s\n", synopsis(fs.Name()), flagList(fs, listed)))
	// The word help alone is --help, after every command as after a
	// group's (subcommand).
	if len(args) == 1 && args[0] == "help" {
		return nil, help
	}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return nil, help
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v\n\n%s", errUsage, fs.Name(), err, flagList(fs, listed))
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

// given is the set of flags set on fs's command line, given an empty value
// too: an empty value given is a mistake to report, not "leave it".
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// onlyFlags refuses the flags set on the command line that fs's command does
// not read (--output aside). A group's commands share one flag set, so
// without this `keys revoke ID --org X` would be accepted with --org
// ignored, as if the revocation were limited to that organization.
func onlyFlags(fs *flag.FlagSet, reads ...string) error {
	var unread []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "output" && !slices.Contains(reads, f.Name) {
			unread = append(unread, "--"+f.Name)
		}
	})
	if len(unread) > 0 {
		return fmt.Errorf("%w: eventapi %s does not take %s", errUsage, fs.Name(), strings.Join(unread, ", "))
	}
	return nil
}

// subcommand returns the subcommand args name, one of subs of group
// (keys, orgs). --help (or -h, help) there lists them.
func subcommand(group string, subs []string, args []string) (string, error) {
	use := fmt.Sprintf("eventapi %s %s", group, strings.Join(subs, "|"))
	if len(args) > 0 && slices.Contains([]string{"-h", "--help", "help"}, args[0]) {
		return "", helpText(fmt.Sprintf("usage: %s [flags]\n\neventapi %s <command> --help lists a command's flags.\n", use, group))
	}
	if len(args) == 0 || !slices.Contains(subs, args[0]) {
		return "", fmt.Errorf("%w: %s", errUsage, use)
	}
	return args[0], nil
}

// flagList lists the flags of fs for which listed is true, with their
// descriptions and defaults.
func flagList(fs *flag.FlagSet, listed func(string) bool) string {
	var b strings.Builder
	b.WriteString("flags:")
	fs.VisitAll(func(f *flag.Flag) {
		if !listed(f.Name) {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "\n  %s\n        %s", strings.TrimSpace("--"+f.Name+" "+arg), usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
	})
	return b.String()
}

// requiredID reads the UUID flag name, which must be given.
func requiredID(name, v string) (uuid.UUID, error) {
	if v == "" {
		return uuid.Nil, fmt.Errorf("%w: --%s is required", errUsage, name)
	}
	id, err := optionalID(name, v, true)
	if err != nil {
		return uuid.Nil, err
	}
	return *id, nil
}

// optionalID reads the UUID flag name: nil when it was not given, and an
// empty value given is not a UUID (given).
func optionalID(name, v string, given bool) (*uuid.UUID, error) {
	if !given {
		return nil, nil
	}
	id, err := uuid.Parse(v)
	if err != nil {
		return nil, fmt.Errorf("%w: --%s: not a UUID: %q", errUsage, name, v)
	}
	return &id, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "R&D", not "R\u0026D": the output is not HTML
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

// withDB runs fn with a database opened as openDB opens it, and closes it
// after: the body of every command that reads or writes the database.
func withDB(ctx context.Context, fn func(db *bun.DB) error) error {
	db, _, err := openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// withOrganization is withDB for a command about one organization: it
// answers not found, before fn runs, when orgID names none.
func withOrganization(ctx context.Context, orgID uuid.UUID, fn func(db *bun.DB) error) error {
	return withDB(ctx, func(db *bun.DB) error {
		if _, err := tenancy.GetOrganization(ctx, db, orgID); err != nil {
			return err
		}
		return fn(db)
	})
}

// nameRequired opens a create command's usage error with what is missing
// when --name was not given (or given empty), and is empty otherwise.
func nameRequired(name string) string {
	if name == "" {
		return "--name is required: "
	}
	return ""
}

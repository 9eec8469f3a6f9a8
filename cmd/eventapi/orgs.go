package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/tenancy"
)

func orgsCmd(ctx context.Context, args []string, stdout io.Writer) error {
	sub, err := subcommand("orgs", []string{"create", "update", "list"}, args)
	if err != nil {
		return err
	}
	fs, output := newFlags("orgs " + sub)
	name := fs.String("name", "", "organization name")
	sandboxOf := fs.String("sandbox-of", "", "parent organization id (creates its sandbox)")
	guard := fs.String("stock-guard", "", "block, warn or off")
	// Whether --rate-limit was given is read from the flag set (given), so
	// no value stands for "not given": -1 is refused like any other value
	// out of range, not taken for the flag's absence.
	rateUse := "v2 requests per window, in place of EVENTAPI_V2_RATE_LIMIT (0: the service's default)"
	if sub == "update" {
		rateUse = "v2 requests per window (0 clears the override; leave the flag out to keep it)"
	}
	rate := fs.Int("rate-limit", 0, rateUse)
	reads := map[string][]string{"create": {"name", "sandbox-of", "stock-guard", "rate-limit"}, "update": {"name", "stock-guard", "rate-limit"}}
	pos, err := parseOwn(fs, output, args[1:], reads[sub])
	if err != nil {
		return err
	}
	// An empty value given is refused, never read as "leave it": an
	// `--sandbox-of ''` read so would make an organization that is no sandbox.
	f := orgFlags{name: *name, sandboxOf: *sandboxOf, guard: *guard, rate: *rate, output: *output, set: given(fs)}
	if f.set["stock-guard"] && f.guard == "" {
		return fmt.Errorf("%w: --stock-guard must be block, warn or off", errUsage)
	}
	switch sub {
	case "create":
		return orgsCreate(ctx, stdout, f, pos)
	case "update":
		return orgsUpdate(ctx, stdout, f, pos)
	case "list":
		return orgsList(ctx, stdout, f, pos)
	}
	return fmt.Errorf("%w: orgs create|update|list", errUsage)
}

// orgFlags are the flag values of an orgs command: the commands share one
// flag set, and each reads its own of them (parseOwn).
type orgFlags struct {
	name, sandboxOf, guard string
	rate                   int
	output                 string          // text or json
	set                    map[string]bool // the flags given (given)
}

// orgsCreate is orgs create: it makes an organization, with its settings.
func orgsCreate(ctx context.Context, stdout io.Writer, f orgFlags, pos []string) error {
	if f.name == "" || len(pos) != 0 {
		return fmt.Errorf("%w: %sorgs create --name N [--sandbox-of ID] [--stock-guard block|warn|off] [--rate-limit N]", errUsage, nameRequired(f.name))
	}
	parent, err := optionalID("sandbox-of", f.sandboxOf, f.set["sandbox-of"])
	if err != nil {
		return err
	}
	u, err := settings(f.guard, f.rate, f.set["rate-limit"])
	if err != nil {
		return err
	}
	return withDB(ctx, func(db *bun.DB) error {
		org, err := createOrganization(ctx, db, f.name, parent, u)
		if err != nil {
			return err
		}
		return printOrg(stdout, f.output, org)
	})
}

// createOrganization makes the organization name (the sandbox of parent,
// when not nil) with the settings u.
func createOrganization(ctx context.Context, db *bun.DB, name string, parent *uuid.UUID, u tenancy.OrganizationUpdate) (*tenancy.Organization, error) {
	// The settings are written with the organization, or nothing is.
	var org *tenancy.Organization
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		created, err := tenancy.CreateOrganization(ctx, tx, name, parent)
		if err != nil || (u.StockGuardMode == nil && u.RateLimit == nil) {
			org = created
			return err
		}
		org, err = tenancy.UpdateOrganization(ctx, tx, created.ID, u)
		return err
	})
	return org, err
}

// orgsUpdate is orgs update ORG_ID: it changes the name and settings given.
func orgsUpdate(ctx context.Context, stdout io.Writer, f orgFlags, pos []string) error {
	if len(pos) != 1 {
		return fmt.Errorf("%w: orgs update ORG_ID [--name N] [--stock-guard block|warn|off] [--rate-limit N]", errUsage)
	}
	id, err := uuid.Parse(pos[0])
	if err != nil {
		return fmt.Errorf("%w: %q is not an organization id", errUsage, pos[0])
	}
	if f.set["name"] && f.name == "" {
		return fmt.Errorf("%w: --name: must not be blank", errUsage)
	}
	u, err := settings(f.guard, f.rate, f.set["rate-limit"])
	if err != nil {
		return err
	}
	if f.name != "" {
		u.Name = &f.name
	}
	if u == (tenancy.OrganizationUpdate{}) {
		// A script that dropped its flag must hear that nothing happened.
		return fmt.Errorf("%w: orgs update: nothing to change: give --name, --stock-guard or --rate-limit", errUsage)
	}
	return withDB(ctx, func(db *bun.DB) error {
		org, err := tenancy.UpdateOrganization(ctx, db, id, u)
		if err != nil {
			return err
		}
		return printOrg(stdout, f.output, org)
	})
}

// orgsList is orgs list: every organization.
func orgsList(ctx context.Context, stdout io.Writer, f orgFlags, pos []string) error {
	if len(pos) != 0 {
		return fmt.Errorf("%w: orgs list", errUsage)
	}
	var orgs []tenancy.Organization
	err := withDB(ctx, func(db *bun.DB) (err error) {
		orgs, err = tenancy.ListOrganizations(ctx, db)
		return err
	})
	if err != nil {
		return err
	}
	if f.output == "json" {
		if orgs == nil {
			orgs = []tenancy.Organization{}
		}
		return printJSON(stdout, map[string]any{"organizations": orgs})
	}
	for _, o := range orgs {
		fmt.Fprintf(stdout, "%s  %-30s stock_guard=%s rate_limit=%s%s\n", o.ID, o.Name, o.StockGuardMode, rateNote(&o), sandboxNote(&o))
	}
	return nil
}

func sandboxNote(o *tenancy.Organization) string {
	if o.SandboxOf != nil {
		return " sandbox_of=" + o.SandboxOf.String()
	}
	return ""
}

// rateNote is the organization's own v2 rate limit, or "default"
// (EVENTAPI_V2_RATE_LIMIT applies).
func rateNote(o *tenancy.Organization) string {
	if o.RateLimit == nil {
		return "default"
	}
	return strconv.Itoa(*o.RateLimit)
}

func printOrg(w io.Writer, output string, o *tenancy.Organization) error {
	if output == "json" {
		// The object orgs list prints for it.
		return printJSON(w, o)
	}
	fmt.Fprintf(w, "organization %s %q stock_guard=%s rate_limit=%s%s\n", o.ID, o.Name, o.StockGuardMode, rateNote(o), sandboxNote(o))
	return nil
}

// settings reads --stock-guard ("" leaves it) and --rate-limit (rateGiven:
// whether the flag was on the command line; 0 clears the override) for
// create and update alike.
func settings(guard string, rate int, rateGiven bool) (tenancy.OrganizationUpdate, error) {
	var u tenancy.OrganizationUpdate
	if guard != "" {
		m := tenancy.StockGuardMode(guard)
		if !m.Valid() {
			return u, fmt.Errorf("%w: --stock-guard must be block, warn or off", errUsage)
		}
		u.StockGuardMode = &m
	}
	if !rateGiven {
		return u, nil
	}
	if rate < 0 || rate > tenancy.MaxRateLimit {
		return u, fmt.Errorf("%w: --rate-limit must be an integer from 1 to %d, or 0 to clear", errUsage, tenancy.MaxRateLimit)
	}
	u.RateLimit = &rate
	return u, nil
}

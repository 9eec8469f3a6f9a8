package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func keysCmd(ctx context.Context, args []string, stdout io.Writer) error {
	sub, err := subcommand("keys", []string{"create", "list", "revoke"}, args)
	if err != nil {
		return err
	}
	fs, output := newFlags("keys " + sub)
	org := fs.String("org", "", "organization id")
	name := fs.String("name", "", "key name")
	scopes := fs.String("scopes", "", "comma-separated scopes, or all")
	mode := fs.String("mode", "live", "live, test or legacy")
	expires := fs.String("expires", "", "optional expiry, RFC 3339 and in the future")
	reads := map[string][]string{"create": {"org", "name", "scopes", "mode", "expires"}, "list": {"org"}}
	pos, err := parseOwn(fs, output, args[1:], reads[sub])
	if err != nil {
		return err
	}
	f := keyFlags{org: *org, name: *name, scopes: *scopes, mode: *mode, expires: *expires, output: *output, set: given(fs)}
	switch sub {
	case "create":
		return keysCreate(ctx, stdout, f, pos)
	case "list":
		return keysList(ctx, stdout, f, pos)
	case "revoke":
		return keysRevoke(ctx, stdout, f, pos)
	}
	return fmt.Errorf("%w: keys create|list|revoke", errUsage)
}

// keyFlags are the flag values of a keys command: the commands share one
// flag set, and each reads its own of them (parseOwn).
type keyFlags struct {
	org, name, scopes, mode, expires string
	output                           string          // text or json
	set                              map[string]bool // the flags given (given)
}

// keysCreate is keys create: it makes a key and prints it, secret and all.
func keysCreate(ctx context.Context, stdout io.Writer, f keyFlags, pos []string) error {
	nk, err := newKey(f, pos)
	if err != nil {
		return err
	}
	return withDB(ctx, func(db *bun.DB) error {
		k, err := tenancy.CreateKey(ctx, db, nk)
		if err != nil {
			return err
		}
		err = printCreatedKey(ctx, db, stdout, f.output, k, nk.OrganizationID)
		return revokeUnseen(ctx, db, err, k.ID)
	})
}

// newKey reads the key keys create is to make from its flags and
// arguments (pos, of which it takes none).
func newKey(f keyFlags, pos []string) (tenancy.NewKey, error) {
	if f.name == "" || len(pos) != 0 {
		return tenancy.NewKey{}, fmt.Errorf("%w: %skeys create --org ID --name N --scopes a,b|all [--mode live|test|legacy] [--expires RFC3339]", errUsage, nameRequired(f.name))
	}
	orgID, err := requiredID("org", f.org)
	if err != nil {
		return tenancy.NewKey{}, err
	}
	if f.scopes == "" {
		return tenancy.NewKey{}, fmt.Errorf("%w: --scopes is required: a comma-separated list of scopes, or all", errUsage)
	}
	ss, err := tenancy.ParseScopes(f.scopes)
	if err != nil {
		return tenancy.NewKey{}, fmt.Errorf("%w: --scopes: %v", errUsage, err)
	}
	m := apikey.Mode(f.mode)
	if !m.Valid() {
		return tenancy.NewKey{}, fmt.Errorf("%w: --mode must be live, test or legacy", errUsage)
	}
	nk := tenancy.NewKey{OrganizationID: orgID, Name: f.name, Scopes: ss, Mode: m}
	nk.ExpiresAt, err = keyExpiry(f)
	if err != nil {
		return tenancy.NewKey{}, err
	}
	return nk, nil
}

// keyExpiry reads --expires: nil when it was not given.
func keyExpiry(f keyFlags) (*time.Time, error) {
	// An empty value given (--expires "$UNSET") is refused: read as
	// "no expiry" it made a key that never expires where one that does
	// was meant.
	if !f.set["expires"] {
		return nil, nil
	}
	t, ok := rest.ParseDateTime(f.expires)
	if !ok {
		return nil, fmt.Errorf("%w: --expires must be RFC 3339, such as 2030-01-31T00:00:00Z", errUsage)
	}
	// A key that can never authenticate is never what was meant.
	if !t.After(time.Now()) {
		return nil, fmt.Errorf("%w: --expires is in the past", errUsage)
	}
	return &t, nil
}

// printCreatedKey prints the key keys create made for the organization
// org, in the output format output. The error is how writing it ended
// (revokeUnseen).
func printCreatedKey(ctx context.Context, db bun.IDB, stdout io.Writer, output string, k *tenancy.CreatedKey, org uuid.UUID) error {
	if output == "json" {
		// The object keys list prints for the key, and its secret.
		return printJSON(stdout, struct {
			listedKey
			Key string `json:"key"`
		}{listed(k.APIKey, time.Now()), k.Secret})
	}
	_, err := fmt.Fprintf(stdout, "key %s (%s, %s, %s)\n%s\nThis is the only time the full key is shown.\n",
		k.ID, k.Mode, k.Prefix, expiry(k.ExpiresAt), k.Secret)
	if err == nil && k.Mode == apikey.Test {
		err = noteLiveTestKey(ctx, db, stdout, org)
	}
	return err
}

// keysList is keys list: every key of an organization, oldest first,
// each with its state.
func keysList(ctx context.Context, stdout io.Writer, f keyFlags, pos []string) error {
	if len(pos) != 0 {
		return fmt.Errorf("%w: keys list --org ID", errUsage)
	}
	orgID, err := requiredID("org", f.org)
	if err != nil {
		return err
	}
	return withOrganization(ctx, orgID, func(db *bun.DB) error {
		ks, err := tenancy.ListKeys(ctx, db, orgID)
		if err != nil {
			return err
		}
		return printKeys(stdout, f.output, ks)
	})
}

// printKeys prints keys list's keys ks in the output format output.
func printKeys(stdout io.Writer, output string, ks []tenancy.APIKey) error {
	if output == "json" {
		out := make([]listedKey, len(ks))
		for i, k := range ks {
			out[i] = listed(k, time.Now())
		}
		return printJSON(stdout, map[string]any{"keys": out})
	}
	for _, k := range ks {
		state := keyState(k, time.Now())
		last := "never"
		if k.LastUsedAt != nil {
			last = k.LastUsedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, "%s  %-12s %-7s %-7s last_used=%s %s  %v\n", k.ID, k.Prefix, k.Mode, state, last, k.Name, k.Scopes)
	}
	return nil
}

// keysRevoke is keys revoke KEY_ID.
func keysRevoke(ctx context.Context, stdout io.Writer, f keyFlags, pos []string) error {
	if len(pos) != 1 {
		return fmt.Errorf("%w: keys revoke KEY_ID", errUsage)
	}
	id, err := uuid.Parse(pos[0])
	if err != nil {
		return fmt.Errorf("%w: %q is not a key id", errUsage, pos[0])
	}
	var registered []webhooks.Endpoint
	err = withDB(ctx, func(db *bun.DB) error {
		// Listed first: a listing that fails leaves the key as it was,
		// and revoking changes no endpoint.
		k, err := tenancy.GetKey(ctx, db, id)
		if err != nil {
			return err
		}
		registered, err = webhooks.EndpointsOfKey(ctx, db, tenancy.OrganizationID{UUID: k.OrganizationID}, id)
		if err != nil {
			return err
		}
		return tenancy.RevokeKey(ctx, db, id)
	})
	if err != nil {
		return err
	}
	if f.output == "json" {
		return printJSON(stdout, map[string]any{"id": id, "revoked": true, "webhook_endpoints": endpointsJSON(registered)})
	}
	fmt.Fprintf(stdout, "key %s revoked\n", id)
	return printLeftEndpoints(stdout, "", "it", registered)
}

// printLeftEndpoints says which webhook endpoints a revoked key (who)
// registered, one line each after indent: an endpoint belongs to the
// organization and outlives the key (docs/webhooks.md), so none is left
// behind unnoticed. Nothing when there are none.
func printLeftEndpoints(stdout io.Writer, indent, who string, eps []webhooks.Endpoint) error {
	if len(eps) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(stdout, "%s%s registered %d webhook endpoint(s); an endpoint outlives its key and, while enabled, receives changes until deleted (DELETE /api/v2/webhook_endpoints/{id}):\n", indent, who, len(eps))
	for _, e := range eps {
		if err == nil {
			_, err = fmt.Fprintf(stdout, "%s  %s  %s  %s\n", indent, e.ID, e.Status, e.URL)
		}
	}
	return err
}

// endpointsJSON is eps as the JSON output lists them: id, url and status.
func endpointsJSON(eps []webhooks.Endpoint) []map[string]any {
	out := make([]map[string]any, 0, len(eps))
	for _, e := range eps {
		out = append(out, map[string]any{"id": e.ID, "url": e.URL, "status": e.Status})
	}
	return out
}

// listedKey is a key as keys list prints it in JSON (and keys create,
// with the secret beside it).
type listedKey struct {
	tenancy.APIKey
	State string `json:"state"` // as the text output says it
}

func listed(k tenancy.APIKey, now time.Time) listedKey {
	return listedKey{APIKey: k, State: keyState(k, now)}
}

// keyState is what keys list says of k at now: revoked, expired (it is
// refused like a revoked key) or active.
func keyState(k tenancy.APIKey, now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case tenancy.Expired(k.ExpiresAt, now):
		return "expired"
	}
	return "active"
}

// expiry is how keys create names a new key's expiry in its text output.
func expiry(at *time.Time) string {
	if at == nil {
		return "never expires"
	}
	return "expires " + at.UTC().Format(time.RFC3339)
}

// revokeUnseen is the end of a command that printed new keys (keys create,
// demo): werr is how writing that output ended. The output is the only
// copy of a full key, so when it failed nobody has the keys and they must
// not stay usable: they are revoked at once, and the error says so
// (README.md, Admin CLI). A nil werr returns nil and revokes nothing.
func revokeUnseen(ctx context.Context, db bun.IDB, werr error, ids ...uuid.UUID) error {
	if werr == nil {
		return nil
	}
	keys, was := "key "+ids[0].String(), "was"
	if len(ids) > 1 {
		keys, was = "keys "+joinIDs(ids), "were"
	}
	var failed []error // each key is tried, whatever became of the others
	for _, id := range ids {
		if err := tenancy.RevokeKey(ctx, db, id); err != nil {
			failed = append(failed, fmt.Errorf("key %s: %w", id, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("writing the output failed (%w), and so did revoking some of the new %s, which nobody saw: %w", werr, keys, errors.Join(failed...))
	}
	return fmt.Errorf("writing the output failed, so the new %s %s revoked: %w", keys, was, werr)
}

func joinIDs(ids []uuid.UUID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}

// noteLiveTestKey says, under a new test key, when its organization has no
// sandbox: the key then reads and writes the live records (docs/decisions.md,
// "Keys and authentication"), which nothing else in its output tells. A
// sandbox organization has no sandbox and can have none, but its records are
// not live ones: no note.
func noteLiveTestKey(ctx context.Context, db bun.IDB, stdout io.Writer, org uuid.UUID) error {
	o, err := tenancy.GetOrganization(ctx, db, org)
	if err != nil || o.SandboxOf != nil {
		return err
	}
	sandbox, err := tenancy.SandboxOrganization(ctx, db, org)
	if err != nil || sandbox != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "Note: organization %s has no sandbox, so this test key acts on its live data "+
		"(eventapi orgs create --name N --sandbox-of %s gives it one).\n", org, org)
	return err
}

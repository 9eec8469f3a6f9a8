package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestOrgsCreateAppliesItsSettings: orgs create writes --stock-guard and
// --rate-limit with the organization (they were parsed and dropped); a bad
// value is a usage error and creates nothing.
func TestOrgsCreateAppliesItsSettings(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	org, err := runCLI(t, "orgs", "create", "--name", "Tuned", "--stock-guard", "warn", "--rate-limit", "7", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	if org["stock_guard_mode"] != "warn" || org["rate_limit"] != float64(7) {
		t.Fatalf("created %v, want stock_guard_mode warn and rate_limit 7", org)
	}
	plain, err := runCLI(t, "orgs", "create", "--name", "Plain", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	if plain["stock_guard_mode"] != "block" || plain["rate_limit"] != nil {
		t.Fatalf("created %v, want the defaults", plain)
	}
	plainID := plain["id"].(string)
	runCases(t, []cliCase{
		{[]string{"orgs", "create", "--name", "Bad", "--stock-guard", "sometimes"}, true, "--stock-guard must be block, warn or off"},
		{[]string{"orgs", "create", "--name", "Bad", "--rate-limit", "-5"}, true, "--rate-limit must be an integer from 1 to 2147483647"},
		// -1 was the "not given" value, silently ignored; whether the flag
		// is given is read from the command line now.
		{[]string{"orgs", "create", "--name", "Bad", "--rate-limit", "-1"}, true, "--rate-limit must be an integer from 1 to 2147483647"},
		{[]string{"orgs", "create", "--name", "Bad", "--rate-limit=-1"}, true, "--rate-limit must be an integer from 1 to 2147483647"},
		{[]string{"orgs", "update", org["id"].(string), "--rate-limit", "-1"}, true, "--rate-limit must be an integer from 1 to 2147483647"},
		{[]string{"orgs", "update", org["id"].(string), "--name", "Renamed", "--rate-limit", "-1"}, true, "--rate-limit must be an integer from 1 to 2147483647"},
		{[]string{"orgs", "create", "--name", "Bad", "--rate-limit", "99999999999"}, true, "--rate-limit must be an integer from 1 to 2147483647"},
		{[]string{"orgs", "list", "extra"}, true, "orgs list"},
		{[]string{"orgs", "list", "--name", "x"}, true, "eventapi orgs list does not take --name"},
		{[]string{"orgs", "update", org["id"].(string), "--sandbox-of", org["id"].(string)}, true, "does not take --sandbox-of"},
		{[]string{"keys", "revoke", org["id"].(string), "--org", org["id"].(string), "--name", "x"}, true, "eventapi keys revoke does not take --name, --org"},
		{[]string{"keys", "list", "--org", org["id"].(string), "--scopes", "nonsense"}, true, "does not take --scopes"},
		{[]string{"keys", "list", "--org", org["id"].(string), "extra"}, true, "keys list --org ID"},
		{[]string{"orgs", "create", "--name", "Twin", "--sandbox-of", plainID}, false, ""},
		{[]string{"orgs", "create", "--name", "Twin 2", "--sandbox-of", plainID}, false, "already has a sandbox"},
		// An empty value given is refused, not taken for "leave it".
		{[]string{"orgs", "update", plainID, "--name", ""}, true, "--name: must not be blank"},
		{[]string{"orgs", "update", plainID, "--stock-guard", ""}, true, "--stock-guard must be block, warn or off"},
		{[]string{"orgs", "update", plainID}, true, "nothing to change"},
		{[]string{"orgs", "update", plainID, "--output", "json"}, true, "nothing to change"},
		{[]string{"orgs", "create", "--name", "Bad", "--stock-guard", ""}, true, "--stock-guard must be block, warn or off"},
		{[]string{"orgs", "create", "--name", "Bad", "--sandbox-of", ""}, true, `--sandbox-of: not a UUID: ""`},
	})
	// Only update has an override to keep (the flag left out) or clear
	// (0); no value of the flag stands for "not given".
	for sub, keeps := range map[string]bool{"create": false, "update": true} {
		var help strings.Builder
		if err := run(context.Background(), []string{"orgs", sub, "--help"}, &help, io.Discard); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(help.String(), "leave the flag out to keep it"); got != keeps {
			t.Errorf("orgs %s --help says how to keep the rate limit: %v, want %v:\n%s", sub, got, keeps, help.String())
		}
		if strings.Contains(help.String(), "-1") {
			t.Errorf("orgs %s --help names -1:\n%s", sub, help.String())
		}
	}
	// The text form shows the rate limit, the organization's own or the
	// default.
	var out strings.Builder
	if err := run(context.Background(), []string{"orgs", "list"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "rate_limit=7") || !strings.Contains(out.String(), "rate_limit=default") {
		t.Errorf("orgs list shows no rate limits:\n%s", out.String())
	}
	list, err := runCLI(t, "orgs", "list", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list["organizations"].([]any)); n != 3 {
		t.Fatalf("%d organizations, want the 3 created (two and a sandbox)", n)
	}
}

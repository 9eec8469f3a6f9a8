package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// asCLI, set in a test binary's environment, makes it run main with its
// arguments, as the eventapi binary would (runMain).
const asCLI = "EVENTAPI_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		main() // exits 1 or 2 on failure
		os.Exit(0)
	}
	pgtest.Main(m)
}

// runMain runs this test binary as `eventapi args...` with stdout as its
// standard output, and returns its exit status and standard error.
func runMain(t *testing.T, stdout *os.File, args ...string) (int, string) {
	t.Helper()
	var errOut bytes.Buffer
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCLI+"=1")
	cmd.Stdout, cmd.Stderr = stdout, &errOut
	err := cmd.Run()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode(), errOut.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, errOut.String()
}

func runCLI(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if json.Valid(out.Bytes()) {
		_ = json.Unmarshal(out.Bytes(), &m)
	}
	return m, nil
}

func TestBadArgumentsAreUsageErrors(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	tests := [][]string{
		{},
		{"launch"},
		{"migrate"},
		{"migrate", "sideways"},
		{"orgs"},
		{"orgs", "create"},
		{"orgs", "create", "--name", "x", "--sandbox-of", "not-a-uuid"},
		{"orgs", "update", "not-a-uuid"},
		{"orgs", "update", "00000000-0000-0000-0000-000000000000", "--stock-guard", "maybe"},
		{"orgs", "update", "00000000-0000-0000-0000-000000000000", "--rate-limit", "-5"},
		{"keys", "create", "--org", "x", "--name", "n", "--scopes", "all"},
		{"keys", "create", "--org", "00000000-0000-0000-0000-000000000000", "--name", "n", "--scopes", "root"},
		{"keys", "create", "--org", "00000000-0000-0000-0000-000000000000", "--name", "n", "--scopes", "all", "--mode", "prod"},
		{"keys", "revoke"},
		{"orgs", "list", "--output", "xml"},
		{"serve", "--bogus"},
	}
	for _, args := range tests {
		if _, err := runCLI(t, args...); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestAdminCommandsPrintJSON(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	if _, err := runCLI(t, "migrate", "up"); err != nil {
		t.Fatal(err)
	}
	org, err := runCLI(t, "orgs", "create", "--name", "Stagecraft", "--output", "json")
	if err != nil || org["id"] == nil || org["name"] != "Stagecraft" {
		t.Fatalf("orgs create: %v %v", org, err)
	}
	id := org["id"].(string)
	upd, err := runCLI(t, "orgs", "update", id, "--stock-guard", "warn", "--rate-limit", "50", "--output", "json")
	if err != nil || upd["stock_guard_mode"] != "warn" || upd["rate_limit"] != float64(50) {
		t.Fatalf("orgs update: %v %v", upd, err)
	}
	sb, err := runCLI(t, "orgs", "create", "--name", "Stagecraft sandbox", "--sandbox-of", id, "--output", "json")
	if err != nil || sb["sandbox_of"] != id {
		t.Fatalf("sandbox: %v %v", sb, err)
	}
	key, err := runCLI(t, "keys", "create", "--org", id, "--name", "planner", "--scopes", "events:read,pick_lists:write", "--mode", "test", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := key["key"].(string)
	if mode, err := apikey.Parse(secret); err != nil || mode != apikey.Test || key["prefix"] != secret[:12] || key["mode"] != "test" {
		t.Fatalf("keys create: %v", key)
	}
	if scopes, _ := key["scopes"].([]any); len(scopes) != 2 {
		t.Fatalf("scopes = %v", key["scopes"])
	}
	list, err := runCLI(t, "keys", "list", "--org", id, "--output", "json")
	keys, _ := list["keys"].([]any)
	if err != nil || len(keys) != 1 || bytes.Contains(mustJSON(list), []byte(secret)) {
		t.Fatalf("keys list: %v %v (the secret must never be listed)", list, err)
	}
	if k, _ := keys[0].(map[string]any); k["state"] != "active" || k["id"] != key["id"] {
		t.Fatalf("keys list: %v, want the key with state active", keys[0])
	}
	if _, err := runCLI(t, "keys", "revoke", key["id"].(string), "--output", "json"); err != nil {
		t.Fatal(err)
	}
	list, _ = runCLI(t, "keys", "list", "--org", id, "--output", "json")
	if k, _ := list["keys"].([]any)[0].(map[string]any); k["state"] != "revoked" {
		t.Fatalf("keys list after revoke: %v, want state revoked", k)
	}
	orgs, err := runCLI(t, "orgs", "list", "--output", "json")
	if all, _ := orgs["organizations"].([]any); err != nil || len(all) != 2 {
		t.Fatalf("orgs list: %v %v", orgs, err)
	}
	st, err := runCLI(t, "migrate", "status", "--output", "json")
	if ms, _ := st["migrations"].([]any); err != nil || len(ms) == 0 {
		t.Fatalf("migrate status: %v %v", st, err)
	}
	demo, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"live_key", "test_key"} {
		if _, err := apikey.Parse(demo[k].(string)); err != nil {
			t.Errorf("demo %s = %v", k, demo[k])
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// cliCase is one invocation and how it must end: want "" is success, else
// an error containing want, a usage error (exit 2) exactly when usage is set.
type cliCase struct {
	args  []string
	usage bool
	want  string
}

func runCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		_, err := runCLI(t, c.args...)
		switch {
		case c.want == "":
			if err != nil {
				t.Errorf("%v: %v, want success", c.args, err)
			}
		case err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, errUsage) != c.usage:
			t.Errorf("%v: err = %v, want an error containing %q (usage error: %v)", c.args, err, c.want, c.usage)
		}
	}
}

// TestUnmigratedDatabase: a command against a database without the
// service's tables says to migrate it, not only what PostgreSQL said.
func TestUnmigratedDatabase(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewEmptyDatabase(t))
	for _, args := range [][]string{{"orgs", "list"}, {"keys", "list", "--org", "00000000-0000-0000-0000-000000000001"}} {
		_, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "run `eventapi migrate up`") {
			t.Errorf("%v: %v, want the advice to migrate", args, err)
		}
	}
	// No database of its name: the advice to create it.
	missing, err := url.Parse(pgtest.NewEmptyDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	missing.Path += "_missing"
	t.Setenv("EVENTAPI_DATABASE_URL", missing.String())
	if _, err := runCLI(t, "orgs", "list"); err == nil || !strings.Contains(err.Error(), "run `eventapi migrate up --create-database`") {
		t.Errorf("orgs list on a database that does not exist: %v, want the advice to create it", err)
	}
}

package main

import (
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// TestKeysRefuseBadArguments: a bad --org names the flag; an --expires in
// the past is refused, since such a key could never authenticate; an
// organization that does not exist is an error, not an empty list.
func TestKeysRefuseBadArguments(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	org, err := runCLI(t, "orgs", "create", "--name", "Keyed", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	id := org["id"].(string)
	create := func(args ...string) []string {
		return append([]string{"keys", "create", "--org", id, "--name", "n", "--scopes", "all"}, args...)
	}
	runCases(t, []cliCase{
		{create("--expires", time.Now().Add(time.Hour).Format(time.RFC3339)), false, ""},
		{create("--expires", "2001-01-01T00:00:00Z"), true, "--expires is in the past"},
		{create("--expires", time.Now().Add(-time.Second).Format(time.RFC3339)), true, "--expires is in the past"},
		{create("--expires", "tomorrow"), true, "--expires must be RFC 3339"},
		{create("--expires", ""), true, "--expires must be RFC 3339"}, // given empty: never "no expiry"
		{create("--expires", "2030-01-01T00:00:00+24:00"), true, "--expires must be RFC 3339"},
		{create("--org", "not-a-uuid"), true, `--org: not a UUID: "not-a-uuid"`},
		{[]string{"keys", "create", "--name", "n", "--scopes", "all"}, true, "--org is required"},
		{create("--org", uuid.NewString()), false, "organization not found"},
		{[]string{"keys", "list", "--org", "x"}, true, `--org: not a UUID: "x"`},
		{[]string{"keys", "list"}, true, "--org is required"},
		{[]string{"keys"}, true, "eventapi keys create|list|revoke"},
		{[]string{"keys", "bogus"}, true, "eventapi keys create|list|revoke"},
		{[]string{"orgs", "bogus"}, true, "eventapi orgs create|update|list"},
		{[]string{"keys", "list", "--org", id}, false, ""},
		{[]string{"keys", "create", "--org", id, "--name", "n"}, true, "--scopes is required"},
		{[]string{"keys", "create", "--org", id, "--name", "   ", "--scopes", "all"}, true, "--name: must not be blank"},
		{[]string{"keys", "create", "--org", id, "--name", "a\tb", "--scopes", "all"}, true, "--name: must not contain control characters"},
		{[]string{"orgs", "create", "--name", "   "}, true, "--name: must not be blank"},
		{[]string{"orgs", "create"}, true, "--name is required"},
		{[]string{"orgs", "create", "--name", ""}, true, "--name is required"},
		{[]string{"keys", "create", "--org", id, "--scopes", "all"}, true, "--name is required"},
		{[]string{"keys", "revoke"}, true, "keys revoke KEY_ID"},
		{[]string{"orgs", "update"}, true, "orgs update ORG_ID"},
		{[]string{"demo", "My House"}, true, `demo takes no arguments, only flags (got "My House")`},
		{[]string{"serve", "extra"}, true, `serve takes no arguments`},
		{[]string{"keys", "list", "--org", uuid.NewString()}, false, "organization not found"},
	})
}

// TestKeysCreateSaysWhatItMade: the JSON of keys create holds the fields
// keys list shows for the key (its expiry among them, null when it never
// expires) beside the secret; the text names the expiry.
func TestKeysCreateSaysWhatItMade(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	org, err := runCLI(t, "orgs", "create", "--name", "Said", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	id := org["id"].(string)
	at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	for _, tc := range []struct {
		expires []string
		want    any
		text    string
	}{
		{nil, nil, "never expires"},
		{[]string{"--expires", at.Format(time.RFC3339)}, at.Format(time.RFC3339), "expires " + at.Format(time.RFC3339)},
	} {
		args := append([]string{"keys", "create", "--org", id, "--name", "Planner", "--scopes", "clients:read"}, tc.expires...)
		k, err := runCLI(t, append(args, "--output", "json")...)
		if err != nil {
			t.Fatal(err)
		}
		for field, want := range map[string]any{"organization_id": id, "name": "Planner", "mode": "live", "expires_at": tc.want, "state": "active", "revoked_at": nil, "last_used_at": nil} {
			if got, ok := k[field]; !ok || got != want {
				t.Errorf("%v: %s = %v (present %v), want %v", tc.expires, field, got, ok, want)
			}
		}
		var out strings.Builder
		if err := run(context.Background(), args, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tc.text) {
			t.Errorf("%v: text output %q does not say %q", tc.expires, out.String(), tc.text)
		}
	}
	// A test key says it acts on live data while its organization has no
	// sandbox, and not once it has one; a test key of the sandbox itself
	// (whose records are not live, and which can have no sandbox) says
	// nothing either.
	testKey := func(org string) []string {
		return []string{"keys", "create", "--org", org, "--name", "Trial", "--scopes", "all", "--mode", "test"}
	}
	var sandboxID string
	for _, sandbox := range []bool{false, true} {
		if sandbox {
			sb, err := runCLI(t, "orgs", "create", "--name", "Said (sandbox)", "--sandbox-of", id, "--output", "json")
			if err != nil {
				t.Fatal(err)
			}
			sandboxID, _ = sb["id"].(string)
		}
		var out strings.Builder
		if err := run(context.Background(), testKey(id), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(out.String(), "has no sandbox, so this test key acts on its live data"); said == sandbox {
			t.Errorf("sandbox %v: test key's text output %q", sandbox, out.String())
		}
	}
	var out strings.Builder
	if err := run(context.Background(), testKey(sandboxID), &out, io.Discard); err != nil {
		t.Fatalf("a test key of the sandbox %q: %v", sandboxID, err)
	}
	if strings.Contains(out.String(), "Note:") {
		t.Errorf("a test key of the sandbox itself: text output %q, want no note", out.String())
	}
}

func TestKeyState(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	for _, tc := range []struct {
		name string
		key  tenancy.APIKey
		want string
	}{
		{"no expiry", tenancy.APIKey{}, "active"},
		{"expires later", tenancy.APIKey{ExpiresAt: at(time.Second)}, "active"},
		{"expires now", tenancy.APIKey{ExpiresAt: at(0)}, "expired"},
		{"expired", tenancy.APIKey{ExpiresAt: at(-time.Hour)}, "expired"},
		{"revoked, not expired", tenancy.APIKey{RevokedAt: at(-time.Minute), ExpiresAt: at(time.Hour)}, "revoked"},
		{"revoked and expired", tenancy.APIKey{RevokedAt: at(-time.Minute), ExpiresAt: at(-time.Hour)}, "revoked"},
	} {
		if got := keyState(tc.key, now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// failingWriter refuses every write, as stdout on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestAKeyNobodySawIsRevoked: a command whose output cannot be written
// fails (exit 1), and a new key that could not be shown is revoked, since
// nobody will ever have it; in text and in JSON.
func TestAKeyNobodySawIsRevoked(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	org, err := runCLI(t, "orgs", "create", "--name", "Unseen", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.MustParse(org["id"].(string))
	for _, output := range []string{"text", "json"} {
		err := run(context.Background(), []string{"keys", "create", "--org", id.String(), "--name", "n", "--scopes", "all", "--output", output},
			failingWriter{}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("%s: err = %v, want a failure saying the key was revoked", output, err)
		}
	}
	if err := run(context.Background(), []string{"orgs", "list"}, failingWriter{}, io.Discard); err == nil {
		t.Error("orgs list with an unwritable stdout succeeded")
	}
	db, _, err := openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, err := tenancy.ListKeys(context.Background(), db, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			t.Errorf("key %s (%s) is active, though it was never shown", k.ID, k.Prefix)
		}
	}
	if len(keys) != 2 {
		t.Errorf("%d keys, want the 2 made", len(keys))
	}
}

// TestClosedPipeFailsAndRevokes runs the binary's main with stdout a pipe
// whose reader is gone (`eventapi keys create … | true`): the write fails
// and the command exits 1, rather than being killed by SIGPIPE (141) before
// it can say so, and every key it made is revoked (README.md, Admin CLI).
func TestClosedPipeFailsAndRevokes(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	org, err := runCLI(t, "orgs", "create", "--name", "Piped", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	create := []string{"keys", "create", "--org", org["id"].(string), "--name", "n", "--scopes", "all"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{create, "so the new key "},
		{append(create, "--output", "json"), "so the new key "},
		{[]string{"demo"}, "so the new keys "},
		{[]string{"demo", "--output", "json"}, "so the new keys "},
		{[]string{"orgs", "list"}, "writing the output: "},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		code, stderr := runMain(t, w, tc.args...)
		w.Close()
		if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "broken pipe") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q (-1 is a signal)", tc.args, code, stderr, tc.want)
		}
	}
	db, _, err := openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	orgs, err := tenancy.ListOrganizations(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range orgs {
		keys, err := tenancy.ListKeys(context.Background(), db, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			n++
			if k.RevokedAt == nil {
				t.Errorf("key %s %q is active, though it was never shown", k.ID, k.Name)
			}
		}
	}
	if n != 8 {
		t.Errorf("%d keys, want the 8 made (2 by keys create, 6 by demo)", n)
	}
}

// TestKeysRevokeNamesTheKeysEndpoints: revoking a key lists the webhook
// endpoints it registered, which outlive it, and none of another key's.
func TestKeysRevokeNamesTheKeysEndpoints(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("EVENTAPI_DATABASE_URL", dbURL)
	org, err := runCLI(t, "orgs", "create", "--name", "Hooked", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	orgID := tenancy.OrganizationID{UUID: uuid.MustParse(org["id"].(string))}
	var keys [2]uuid.UUID
	for i := range keys {
		k, err := runCLI(t, "keys", "create", "--org", orgID.String(), "--name", "k", "--scopes", "all", "--output", "json")
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = uuid.MustParse(k["id"].(string))
	}
	db, err := database.Open(context.Background(), dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	sealer, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{"https://planner.example/a", "https://planner.example/b", "https://other.example/c"}
	for i, u := range urls {
		_, err := webhooks.CreateEndpoint(context.Background(), db, tenancy.Tenant{Org: orgID}, sealer,
			webhooks.NewEndpoint{URL: u, EnabledEvents: []string{"*"}, CreatedByKeyID: keys[i/2]})
		if err != nil {
			t.Fatal(err)
		}
	}
	out, err := runCLI(t, "keys", "revoke", keys[0].String(), "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out["webhook_endpoints"].([]any) {
		got = append(got, e.(map[string]any)["url"].(string))
	}
	if strings.Join(got, " ") != strings.Join(urls[:2], " ") {
		t.Fatalf("revoke lists endpoints %q, want %q", got, urls[:2])
	}
	var text strings.Builder
	if err := run(context.Background(), []string{"keys", "revoke", keys[1].String()}, &text, io.Discard); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !strings.Contains(s, "registered 1 webhook endpoint") || !strings.Contains(s, urls[2]) || strings.Contains(s, urls[0]) {
		t.Fatalf("revoke says:\n%s", s)
	}

	// A test key acts in the organization's sandbox: its endpoints are
	// there.
	sb, err := runCLI(t, "orgs", "create", "--name", "Hooked sandbox", "--sandbox-of", orgID.String(), "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := runCLI(t, "keys", "create", "--org", orgID.String(), "--name", "t", "--scopes", "all", "--mode", "test", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	sandbox := tenancy.OrganizationID{UUID: uuid.MustParse(sb["id"].(string))}
	if _, err := webhooks.CreateEndpoint(context.Background(), db, tenancy.Tenant{Org: sandbox, Demo: true}, sealer, webhooks.NewEndpoint{
		URL: "https://sandbox.example/d", EnabledEvents: []string{"*"}, CreatedByKeyID: uuid.MustParse(tk["id"].(string))}); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "keys", "revoke", tk["id"].(string), "--output", "json")
	if eps, _ := out["webhook_endpoints"].([]any); err != nil || len(eps) != 1 || eps[0].(map[string]any)["url"] != "https://sandbox.example/d" {
		t.Fatalf("revoking the test key: %v %v, want its sandbox's endpoint", out, err)
	}
}

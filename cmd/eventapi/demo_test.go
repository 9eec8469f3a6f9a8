package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestDemoSandboxIsIsolatedAndReused runs `eventapi demo` twice on one
// database and then serves it: the second run reuses the organization and
// its sandbox and revokes the first run's keys; the test key reads and
// writes only the sandbox (live data never shows through it, and what it
// writes never shows to the live key); the legacy key reads v1.
func TestDemoSandboxIsIsolatedAndReused(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("EVENTAPI_REDIS_URL", "")
	if _, err := runCLI(t, "migrate", "up"); err != nil {
		t.Fatal(err)
	}
	first, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	second, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	if first["reused"] != false || second["reused"] != true ||
		second["organization_id"] != first["organization_id"] || second["sandbox_organization_id"] != first["sandbox_organization_id"] {
		t.Fatalf("second run did not reuse the first's organizations:\nfirst  %v\nsecond %v", first, second)
	}
	orgs, err := runCLI(t, "orgs", "list", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(orgs["organizations"].([]any)); n != 2 {
		t.Fatalf("%d organizations after two runs, want 2 (demo and its sandbox): %v", n, orgs)
	}

	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := server.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.App.Shutdown(); _ = svc.Close() })
	call := func(key any, method, path, body string) (int, map[string]any) {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key.(string))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := svc.App.Test(req, 30_000)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		raw, _ := io.ReadAll(res.Body)
		_ = json.NewDecoder(bytes.NewReader(raw)).Decode(&m)
		return res.StatusCode, m
	}
	for _, k := range []string{"live_key", "test_key", "legacy_key"} {
		if st, _ := call(first[k], "GET", "/api/v2/health", ""); st != 401 {
			t.Errorf("first run's %s answers %d after the second run, want 401 (revoked)", k, st)
		}
	}
	live, test := second["live_key"], second["test_key"]

	_, h := call(test, "GET", "/api/v2/health", "")
	if d := h["data"].(map[string]any); d["sandbox"] != true || d["organization_id"] != second["sandbox_organization_id"] {
		t.Fatalf("test key health = %v, want the sandbox organization %v", d, second["sandbox_organization_id"])
	}
	// Each key sees only its own organization's seeded records.
	demoFlags := func(key any) map[any]int {
		_, l := call(key, "GET", "/api/v2/clients?limit=100", "")
		flags := map[any]int{}
		for _, c := range l["data"].([]any) {
			flags[c.(map[string]any)["demo"]]++
		}
		return flags
	}
	if f := demoFlags(live); f[true] != 0 || f[false] == 0 {
		t.Fatalf("live key sees clients by demo flag %v, want only live records", f)
	}
	if f := demoFlags(test); f[false] != 0 || f[true] == 0 {
		t.Fatalf("test key sees clients by demo flag %v, want only sandbox records", f)
	}
	// A sandbox write stays in the sandbox; a live record is out of reach.
	st, c := call(test, "POST", "/api/v2/clients", `{"name":"Sandbox Only Productions"}`)
	if st != 201 {
		t.Fatalf("test key POST /clients = %d %v", st, c)
	}
	if _, l := call(live, "GET", "/api/v2/clients?search=Sandbox%20Only", ""); len(l["data"].([]any)) != 0 {
		t.Fatalf("the live key sees the sandbox's client: %v", l)
	}
	_, l := call(live, "GET", "/api/v2/clients?limit=1", "")
	liveClient := l["data"].([]any)[0].(map[string]any)["id"].(string)
	if st, _ := call(test, "PATCH", "/api/v2/clients/"+liveClient, `{"name":"changed"}`); st != 404 {
		t.Fatalf("test key PATCH of a live client = %d, want 404", st)
	}
	if st, _ := call(test, "GET", "/api/v2/clients/"+liveClient, ""); st != 404 {
		t.Fatalf("test key GET of a live client = %d, want 404", st)
	}
	// The legacy key reads the live organization through v1.
	st, v1 := call(second["legacy_key"], "GET", "/api/v1/equipment?limit=2", "")
	if st != 200 || v1["meta"].(map[string]any)["org_id"] != second["organization_id"] {
		t.Fatalf("legacy key v1 equipment = %d %v", st, v1)
	}
}

// TestDemoWhoseOutputFailed: a demo run whose output cannot be written
// fails, revokes the keys it made (nobody saw them) and leaves the previous
// run's keys active, since they are still the ones someone has; the next
// run that prints its keys revokes those.
func TestDemoWhoseOutputFailed(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	ctx := context.Background()
	db, _, err := openDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// active is the prefixes of the demo organization's active keys.
	active := func(org any) map[string]bool {
		t.Helper()
		keys, err := tenancy.ListKeys(ctx, db, uuid.MustParse(org.(string)))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, k := range keys {
			if k.RevokedAt == nil {
				m[k.Prefix] = true
			}
		}
		return m
	}
	printed := func(run map[string]any) map[string]bool {
		m := map[string]bool{}
		for _, k := range []string{"live_key", "test_key", "legacy_key"} {
			m[run[k].(string)[:12]] = true
		}
		return m
	}
	first, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, output := range []string{"text", "json"} {
		err := run(ctx, []string{"demo", "--output", output}, failingWriter{}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "were revoked") {
			t.Errorf("%s: err = %v, want a failure saying the new keys were revoked", output, err)
		}
		if got, want := active(first["organization_id"]), printed(first); !maps.Equal(got, want) {
			t.Errorf("%s: active keys %v after a failed run, want the first run's %v", output, got, want)
		}
	}
	third, err := runCLI(t, "demo", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := active(first["organization_id"]), printed(third); !maps.Equal(got, want) {
		t.Errorf("active keys %v after a run that printed its keys, want its own %v", got, want)
	}
}

// TestDemoLeavesOtherOrganizationsAlone: demo --name naming an organization
// demo did not make is refused, and that organization gets no sandbox and
// no keys; a name given with surrounding spaces finds the organization an
// earlier run made under the trimmed name. Any organization of that name
// was reused, given a seeded sandbox (its test keys then reached it instead
// of the organization) and keys with every scope.
func TestDemoLeavesOtherOrganizationsAlone(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("EVENTAPI_REDIS_URL", "")
	if _, err := runCLI(t, "migrate", "up"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, _, err := openDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	real, err := tenancy.CreateOrganization(ctx, db, "Acme Staging", nil)
	if err != nil {
		t.Fatal(err)
	}
	// An operator's own key that happens to carry a demo key's name does
	// not make the organization demo's.
	own, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: real.ID, Name: "demo live key",
		Scopes: []tenancy.Scope{tenancy.EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "demo", "--name", "Acme Staging", "--output", "json"); err == nil || !strings.Contains(err.Error(), "did not make") {
		t.Fatalf("demo on a real organization's name: %v, want a refusal", err)
	}
	if sandbox, err := tenancy.SandboxOrganization(ctx, db, real.ID); err != nil || sandbox != nil {
		t.Fatalf("the real organization's sandbox: %v, %v; want none", sandbox, err)
	}
	if keys, err := tenancy.ListKeys(ctx, db, real.ID); err != nil || len(keys) != 1 || keys[0].ID != own.ID || keys[0].RevokedAt != nil {
		t.Fatalf("the real organization's keys: %+v, %v; want its own key only, active", keys, err)
	}
	first, err := runCLI(t, "demo", "--name", "Show Co", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	again, err := runCLI(t, "demo", "--name", "  Show Co ", "--output", "json")
	if err != nil || again["reused"] != true || again["organization_id"] != first["organization_id"] {
		t.Fatalf("demo --name with spaces: %v, %v; want the first run's organization reused", again, err)
	}
	// The longest valid name: its sandbox's name is cut to fit.
	long := strings.Repeat("D", tenancy.MaxNameLength)
	if _, err := runCLI(t, "demo", "--name", long, "--output", "json"); err != nil {
		t.Fatalf("demo --name of %d characters: %v", tenancy.MaxNameLength, err)
	}
}

func TestSandboxName(t *testing.T) {
	max := tenancy.MaxNameLength
	for _, tc := range []struct{ name, want string }{
		{"Show Co", "Show Co (sandbox)"},
		{strings.Repeat("a", max-10), strings.Repeat("a", max-10) + " (sandbox)"},
		{strings.Repeat("a", max-9), strings.Repeat("a", max-10) + " (sandbox)"},
		{strings.Repeat("é", max), strings.Repeat("é", max-10) + " (sandbox)"},
		{strings.Repeat("a", max-11) + " b", strings.Repeat("a", max-11) + " (sandbox)"},
	} {
		got := sandboxName(tc.name)
		if got != tc.want {
			t.Errorf("sandboxName(%d characters) = %q, want %q", len([]rune(tc.name)), got, tc.want)
		}
		if _, err := tenancy.CleanName(got); err != nil {
			t.Errorf("sandboxName(%d characters) is not a valid name: %v", len([]rune(tc.name)), err)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":           "http://localhost:8080",
		"0.0.0.0:18094":   "http://localhost:18094",
		"[::]:9000":       "http://localhost:9000",
		"127.0.0.1:8081":  "http://127.0.0.1:8081",
		"192.0.2.2:18094": "http://192.0.2.2:18094",
		"[::1]:8080":      "http://[::1]:8080",
		"myhost.local:80": "http://myhost.local:80",
		"8080":            "http://localhost:8080",
	} {
		if got := baseURL(addr); got != want {
			t.Errorf("baseURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

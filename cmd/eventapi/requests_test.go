package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// TestRequestsListAndKeyLastUsed: `requests list` prints the organization's
// records newest first with the filters applied, and `keys list` shows when
// a key was last used.
func TestRequestsListAndKeyLastUsed(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("EVENTAPI_DATABASE_URL", dbURL)
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	org, err := tenancy.CreateOrganization(ctx, db, "Logged", nil)
	if err != nil {
		t.Fatal(err)
	}
	other := uuid.New()
	now := time.Now()
	keyPrefix := "svc_live_K3y"
	var recs []requestlog.Record
	for i, st := range []int{200, 429, 429, 404} {
		r := requestlog.Record{CreatedAt: now.Add(time.Duration(i-10) * time.Second), OrganizationID: &org.ID,
			RequestID: uuid.NewString(), Method: "GET", Path: "/api/v2/events", Status: st, APIVersion: "v2"}
		if st == 429 {
			r.KeyPrefix = &keyPrefix
		}
		r.Normalize()
		recs = append(recs, r)
	}
	foreign := requestlog.Record{CreatedAt: now, OrganizationID: &other, RequestID: "foreign", Method: "GET",
		Path: "/api/v2/events", Status: 429, APIVersion: "v2"}
	foreign.Normalize()
	if err := requestlog.Copy(ctx, db, append(recs, foreign)); err != nil {
		t.Fatal(err)
	}

	out, err := runCLI(t, "requests", "list", "--org", org.ID.String(), "--since", "1h", "--status", "429", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := out["requests"].([]any)
	if len(got) != 2 {
		t.Fatalf("requests list: %v", out)
	}
	first, second := got[0].(map[string]any), got[1].(map[string]any)
	if first["request_id"] != recs[2].RequestID || second["request_id"] != recs[1].RequestID {
		t.Errorf("not the 429s newest first: %v", got)
	}
	if all, err := runCLI(t, "requests", "list", "--org", org.ID.String(), "--status", "4xx", "--output", "json"); err != nil ||
		len(all["requests"].([]any)) != 3 {
		t.Errorf("--status 4xx: %v %v", all, err)
	}
	// Text: a header naming the columns, each line with its key's prefix
	// (which client sent a burst); a line saying so when none match.
	for _, tc := range []struct{ status, want, has string }{
		{"429", "TIME ", " KEY "}, {"429", "TIME ", " " + keyPrefix + " "}, {"503", "(no requests logged match)", ""},
	} {
		var text, errOut bytes.Buffer
		if err := run(ctx, []string{"requests", "list", "--org", org.ID.String(), "--status", tc.status}, &text, &errOut); err != nil ||
			!strings.HasPrefix(text.String(), tc.want) || !strings.Contains(text.String(), tc.has) {
			t.Errorf("requests list --status %s as text: %v, %q; want it to start with %q and hold %q", tc.status, err, text.String(), tc.want, tc.has)
		}
	}
	for _, bad := range [][]string{{"requests"}, {"requests", "list"}, {"requests", "list", "--org", org.ID.String(), "--status", "4x"},
		{"requests", "list", "--org", org.ID.String(), "--since", "yesterday"}} {
		if _, err := runCLI(t, bad...); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}

	k, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: org.ID, Name: "ops", Scopes: []tenancy.Scope{tenancy.RequestLogsRead}, Mode: "live"})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := runCLI(t, "keys", "list", "--org", org.ID.String(), "--output", "json")
	if err != nil || keys["keys"].([]any)[0].(map[string]any)["last_used_at"] != nil {
		t.Fatalf("unused key: %v %v", keys, err)
	}
	auth := tenancy.NewAuthenticator(db, nil)
	p, err := auth.Authenticate(ctx, k.Secret)
	if err != nil {
		t.Fatal(err)
	}
	auth.Used(p)
	auth.Close() // writes the pending last_used_at
	keys, err = runCLI(t, "keys", "list", "--org", org.ID.String(), "--output", "json")
	if err != nil || keys["keys"].([]any)[0].(map[string]any)["last_used_at"] == nil {
		t.Fatalf("used key has no last_used_at: %v %v", keys, err)
	}
}

// TestRequestsListRefusesBadArguments: a bad value names its flag and what
// it accepts; --since not before --until is refused; an organization that
// does not exist is an error (exit 1), not an empty log.
func TestRequestsListRefusesBadArguments(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", pgtest.NewDatabase(t))
	org, err := runCLI(t, "orgs", "create", "--name", "Quiet", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	list := func(args ...string) []string {
		return append([]string{"requests", "list", "--org", org["id"].(string)}, args...)
	}
	at := "2030-01-01T00:00:00Z"
	runCases(t, []cliCase{
		{list(), false, ""},
		{list("--since", "2h", "--until", "1h", "--limit", "10000"), false, ""},
		{list("--limit", "0"), true, `--limit must be between 1 and 10000: "0"`},
		{list("--limit", "10001"), true, "--limit must be between 1 and 10000"},
		{list("--limit", "abc"), true, `--limit must be between 1 and 10000: "abc"`},
		{list("--org", "not-a-uuid"), true, `--org: not a UUID: "not-a-uuid"`},
		{[]string{"requests", "list", "--status", "429"}, true, "--org is required"},
		{list("--key", "k1"), true, `--key: not a UUID: "k1"`},
		{list("--method", "FOO"), true, "--method must be one of GET, HEAD"},
		{list("--method", "patch"), false, ""},
		{list("--request-id", ""), true, `--request-id must be a request id (the uuid of an X-Request-Id): ""`},
		{list("--request-id", "abc"), true, "--request-id must be a request id"},
		{list("--request-id", "0190B5A8-0000-7000-8000-000000000000"), false, ""},
		{list("--since", "yesterday"), true, `--since: "yesterday" is neither RFC 3339 nor a duration such as 24h`},
		// RFC 3339 as the API reads it: time.Parse would shift +24:00 by a day.
		{list("--since", "2026-01-01T00:00:00+24:00"), true,
			`--since: "2026-01-01T00:00:00+24:00" is neither RFC 3339 nor a duration such as 24h`},
		{list("--until", "2026-01-01T00:00:00+23:60"), true,
			`--until: "2026-01-01T00:00:00+23:60" is neither RFC 3339 nor a duration such as 24h`},
		{list("--until", "9999-12-31T23:00:00-12:00"), true, "is outside the years 1900 to 9999"},
		{list("--since", "2026-01-01T00:00:00+23:59", "--until", "2026-01-01T00:00:00Z"), false, ""},
		{list("--since", "1h", "--until", "2h"), true, "--since must be before --until"},
		{list("--since", "2000000h"), true, `"2000000h" reaches back before the year 1900`},
		{list("--since", "87600h"), false, ""}, // ten years
		{list("--since", at, "--until", at), true, "--since must be before --until"},
		{list("--org", uuid.NewString()), false, "organization not found"},
		// A filter given empty (from an unset variable) is refused, never
		// read as no filter; an empty --route is no filter, as route= is.
		{list("--status", ""), true, "--status must be a status code or a class such as 4xx"},
		{list("--since", ""), true, `--since: "" is neither RFC 3339 nor a duration such as 24h`},
		{list("--until", ""), true, `--until: "" is neither RFC 3339 nor a duration such as 24h`},
		{list("--key", ""), true, `--key: not a UUID: ""`},
		{list("--method", ""), true, "--method must be one of"},
		{list("--route", ""), false, ""},
	})
}

// TestListedTimeHasAFixedWidth: requests list prints created_at in UTC with
// 6 fractional digits whatever its trailing zeros, so the columns line up.
func TestListedTimeHasAFixedWidth(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{at.Add(275 * time.Millisecond), "2026-03-04T05:06:07.275000Z"},
		{at, "2026-03-04T05:06:07.000000Z"},
		{at.Add(123456 * time.Microsecond), "2026-03-04T05:06:07.123456Z"},
		{at.Add(time.Microsecond).In(time.FixedZone("", 2*3600)), "2026-03-04T05:06:07.000001Z"},
	} {
		if got := listedTime(tc.in); got != tc.want {
			t.Errorf("listedTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWhenReadsDateTimesAsTheAPIDoes: --since and --until read an RFC 3339
// date-time as the API reads since and until (rest.DateTimeUpIssue: in
// UTC, a fraction finer than a microsecond rounded up) or a duration back
// from now.
func TestWhenReadsDateTimesAsTheAPIDoes(t *testing.T) {
	now := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"2026-01-01T00:00:00+02:00", time.Date(2025, 12, 31, 22, 0, 0, 0, time.UTC), false},
		{"2026-01-01T00:00:00.0000009Z", time.Date(2026, 1, 1, 0, 0, 0, 1000, time.UTC), false},
		{"2026-01-01T00:00:00.000001000Z", time.Date(2026, 1, 1, 0, 0, 0, 1000, time.UTC), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"2026-01-01T00:00:00-24:00", time.Time{}, true},
		{"2026-01-01T1:00:00Z", time.Time{}, true},
		{"1899-12-31T23:59:59Z", time.Time{}, true},
		{"-1h", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := when(tt.in, now)
		if (err != nil) != tt.err || !got.Equal(tt.want) || (err == nil && got.Location() != time.UTC) {
			t.Errorf("when(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

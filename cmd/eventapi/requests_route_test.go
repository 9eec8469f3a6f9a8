package main

import (
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

// TestRouteFilterReadsAsTheAPIDoes: --route is read as route= is by GET
// /api/v2/request_logs: trimmed of white space and invisible characters at
// either end, composed (NFC), empty meaning no filter; a value the API
// refuses with 422 is a usage error.
func TestRouteFilterReadsAsTheAPIDoes(t *testing.T) {
	for _, c := range []struct {
		name, in, want, issue string
	}{
		{"as recorded", "/api/v2/events/{id}", "/api/v2/events/{id}", ""},
		{"spaces around", " /api/v2/changes ", "/api/v2/changes", ""},
		{"tab and newline", "\t/api/v2/changes\n", "/api/v2/changes", ""},
		{"invisible characters around", "\u200b/api/v2/changes\ufeff", "/api/v2/changes", ""},
		{"decomposed", "/api/v2/cafe\u0301", "/api/v2/caf\u00e9", ""},
		{"empty", "", "", ""},
		{"only spaces", "   ", "", ""},
		{"at the limit", strings.Repeat("é", 255), strings.Repeat("é", 255), ""},
		{"too long", strings.Repeat("a", 256), "", "must be at most 255 characters"},
		{"NUL", "/api/v2/\x00", "", "must not contain NUL"},
		{"control character", "/api/v2/\x1b[2J", "", "must not contain line breaks or control characters"},
		{"not UTF-8", "/api/v2/\xff", "", "valid UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := routeFilter(c.in)
			switch {
			case c.issue == "" && (err != nil || got != c.want):
				t.Errorf("routeFilter(%+q) = %+q, %v; want %+q", c.in, got, err, c.want)
			case c.issue != "" && (!errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--route must") ||
				!strings.Contains(err.Error(), c.issue)):
				t.Errorf("routeFilter(%+q) = %+q, %v; want a usage error naming --route: %s", c.in, got, err, c.issue)
			}
		})
	}
}

// TestRequestsListTrimsTheRoute: `requests list --route " /api/v2/changes "`
// finds the records of /api/v2/changes, as route=%20/api/v2/changes%20 does.
func TestRequestsListTrimsTheRoute(t *testing.T) {
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
	org, err := tenancy.CreateOrganization(ctx, db, "Routed", nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []requestlog.Record
	for i, route := range []string{"/api/v2/changes", "/api/v2/events"} {
		r := requestlog.Record{CreatedAt: time.Now().Add(time.Duration(i-10) * time.Second), OrganizationID: &org.ID,
			RequestID: uuid.NewString(), Method: "GET", Path: route, Route: &route, Status: 200, APIVersion: "v2"}
		r.Normalize()
		recs = append(recs, r)
	}
	if err := requestlog.Copy(ctx, db, recs); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "requests", "list", "--org", org.ID.String(), "--route", " /api/v2/changes ", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := out["requests"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["request_id"] != recs[0].RequestID {
		t.Errorf(`--route " /api/v2/changes ": %v; want the one record of /api/v2/changes`, out)
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/requestlogs"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	logstore "github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// maxListed bounds requests list --limit.
const maxListed = 10_000

// requestsCmd reads an organization's request log, newest first:
//
//	eventapi requests list --org ID [--since 24h|RFC3339] [--until RFC3339]
//	  [--status 429|4xx] [--method M] [--route T] [--key ID] [--request-id R] [--limit N]
//
// An organization that does not exist is an error, not an empty log.
func requestsCmd(ctx context.Context, args []string, stdout io.Writer) error {
	const use = "requests list --org ID [--since 24h|RFC3339] [--until RFC3339] [--status 429|4xx] [--method M] [--route T] [--key ID] [--request-id R] [--limit N]"
	if _, err := subcommand("requests", []string{"list"}, args); err != nil {
		return err
	}
	fs, output := newFlags("requests list")
	org := fs.String("org", "", "organization id")
	since := fs.String("since", "", "records at or after: RFC 3339, or a duration back from now such as 24h")
	until := fs.String("until", "", "records before: RFC 3339, or a duration back from now")
	status := fs.String("status", "", "a status code or a class such as 4xx")
	method := fs.String("method", "", "HTTP method")
	route := fs.String("route", "", "route template, such as /api/v2/events/{id}")
	key := fs.String("key", "", "API key id")
	reqID := fs.String("request-id", "", "one request's X-Request-Id")
	limitArg := fs.String("limit", "100", fmt.Sprintf("most records printed, `N` from 1 to %d", maxListed))
	pos, err := parse(fs, output, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: %s", errUsage, use)
	}
	return requestsList(ctx, stdout, requestFlags{
		org: *org, since: *since, until: *until, status: *status, method: *method,
		route: *route, key: *key, reqID: *reqID, limit: *limitArg, output: *output, set: given(fs),
	})
}

// requestFlags are the flag values of requests list.
type requestFlags struct {
	org, since, until, status, method, route, key, reqID string
	limit                                                string          // --limit as given
	output                                               string          // text or json
	set                                                  map[string]bool // the flags given (given)
}

// requestsList is requests list, its flags parsed.
func requestsList(ctx context.Context, stdout io.Writer, rf requestFlags) error {
	orgID, err := requiredID("org", rf.org)
	if err != nil {
		return err
	}
	limit, err := strconv.Atoi(rf.limit)
	if err != nil || limit < 1 || limit > maxListed {
		return fmt.Errorf("%w: --limit must be between 1 and %d: %q", errUsage, maxListed, rf.limit)
	}
	f, err := requestFilter(rf)
	if err != nil {
		return err
	}
	return withOrganization(ctx, orgID, func(db *bun.DB) error {
		recs, more, err := logstore.List(ctx, db, tenancy.OrganizationID{UUID: orgID}, f, nil, limit)
		if err != nil {
			return err
		}
		return printRequests(stdout, rf.output, recs, more, limit)
	})
}

// requestFilter reads the filter flags of requests list.
func requestFilter(rf requestFlags) (logstore.Filter, error) {
	var f logstore.Filter
	var err error
	if f.Route, err = routeFilter(rf.route); err != nil {
		return f, err
	}
	// A filter flag given empty is refused, never read as "no filter": a
	// command built from an unset variable must not list everything
	// (docs/decisions.md: a filter given with an empty value). --route alone takes "" as
	// no filter, as the API's route= does.
	if rf.set["method"] {
		m, ok := logstore.ParseMethod(rf.method)
		if !ok {
			return f, fmt.Errorf("%w: --method must be one of %s", errUsage, strings.Join(logstore.Methods, ", "))
		}
		f.Method = m
	}
	if rf.set["request-id"] {
		rid, ok := logstore.ParseRequestID(rf.reqID)
		if !ok {
			return f, fmt.Errorf("%w: --request-id must be a request id (the uuid of an X-Request-Id): %q", errUsage, rf.reqID)
		}
		f.RequestID = rid
	}
	if rf.set["status"] {
		sf, ok := logstore.ParseStatus(rf.status)
		if !ok {
			return f, fmt.Errorf("%w: --status must be a status code or a class such as 4xx", errUsage)
		}
		f.Status, f.StatusClass = sf.Status, sf.StatusClass
	}
	if f.KeyID, err = optionalID("key", rf.key, rf.set["key"]); err != nil {
		return f, err
	}
	if err := setWindow(&f, rf, time.Now()); err != nil {
		return f, err
	}
	if f.EmptyWindow() {
		return f, fmt.Errorf("%w: --since must be before --until", errUsage)
	}
	return f, nil
}

// setWindow sets f's Since and Until from --since and --until, those of
// them given, durations reaching back from now.
func setWindow(f *logstore.Filter, rf requestFlags, now time.Time) error {
	for _, q := range []struct {
		name, v string
		dst     **time.Time
	}{{"since", rf.since, &f.Since}, {"until", rf.until, &f.Until}} {
		if !rf.set[q.name] {
			continue
		}
		t, err := when(q.v, now)
		if err != nil {
			return fmt.Errorf("%w: --%s: %v", errUsage, q.name, err)
		}
		*q.dst = &t
	}
	return nil
}

// printRequests prints the records recs of requests list in the output
// format output; more says the log holds more than the limit listed.
func printRequests(stdout io.Writer, output string, recs []requestlog.Record, more bool, limit int) error {
	if output == "json" {
		if recs == nil {
			recs = []requestlog.Record{}
		}
		return printJSON(stdout, map[string]any{"requests": recs, "truncated": more})
	}
	if len(recs) == 0 {
		_, err := fmt.Fprintln(stdout, "(no requests logged match)")
		return err
	}
	fmt.Fprintf(stdout, "%-27s  %-36s %-12s %-6s %-40s %-6s %-24s %10s  %s\n", "TIME", "REQUEST ID", "KEY", "METHOD", "ROUTE", "STATUS", "ERROR CODE", "DURATION", "PATH")
	for _, r := range recs {
		code, route, key := "-", "-", "-"
		if r.ErrorCode != nil {
			code = *r.ErrorCode
		}
		if r.Route != nil {
			route = *r.Route
		}
		if r.KeyPrefix != nil {
			key = *r.KeyPrefix
		}
		fmt.Fprintf(stdout, "%s  %-36s %-12s %-6s %-40s %-6d %-24s %8.1fms  %s\n", listedTime(r.CreatedAt),
			r.RequestID, key, r.Method, route, r.Status, code, r.DurationMS, r.Path)
	}
	if more {
		fmt.Fprintf(stdout, "(more records than the %d listed; narrow with --since/--until or raise --limit)\n", limit)
	}
	return nil
}

// routeFilter reads --route as GET /api/v2/request_logs reads route=, with
// the same function (rest.QueryText), so that the CLI and the API find
// the same records: trimmed of white space and invisible characters at
// either end and in Unicode NFC (docs/decisions.md, "Strings are
// trimmed"); too long, a NUL or control character or bytes that are not
// UTF-8 are a usage error.
func routeFilter(v string) (string, error) {
	r, err := rest.QueryText("route", v, requestlogs.MaxRouteLength)
	if err != nil {
		issue := err.Error()
		if is := errs.Issues(err); len(is) > 0 {
			issue = is[0].Issue
		}
		return "", fmt.Errorf("%w: --route %s", errUsage, issue)
	}
	return r, nil
}

// listedTime is a record's created_at in the text output: UTC, always with
// 6 fractional digits (the log keeps microseconds), so that every line's
// columns line up; RFC3339Nano drops trailing zeros.
func listedTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// when reads an RFC 3339 instant, as the API reads since and until
// (rest.DateTimeUpIssue: rounded up to the microsecond), or a duration back
// from now ("24h").
func when(v string, now time.Time) (time.Time, error) {
	switch t, issue := rest.DateTimeUpIssue(v, ""); issue {
	case "":
		return t, nil
	case storage.YearRangeIssue:
		return time.Time{}, fmt.Errorf("%q is outside the years %d to %d", v, storage.MinYear, storage.MaxYear)
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor a duration such as 24h", v)
	}
	// A duration reaches the same years as an instant does.
	t := now.Add(-d)
	if t.UTC().Year() < storage.MinYear {
		return time.Time{}, fmt.Errorf("%q reaches back before the year %d", v, storage.MinYear)
	}
	return t, nil
}

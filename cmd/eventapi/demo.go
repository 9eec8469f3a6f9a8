package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/demo"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// demoKeyNames are the keys demo issues; a later run revokes them once its
// own are printed, so one demo organization never piles up keys.
var demoKeyNames = map[string]bool{"demo live key": true, "demo test key": true, "demo legacy key": true}

// demoResult is what demo prints.
type demoResult struct {
	OrganizationID, SandboxID uuid.UUID
	// Reused: the organizations existed; ShowcaseMoved: the reuse moved
	// the planner's showcase back to next week (demo.Refresh).
	Reused, ShowcaseMoved bool
	// ShowcaseNotMoved says why a due move of the timeline was not made,
	// per organization (the move would have oversold stock).
	ShowcaseNotMoved               []string
	LiveKey, TestKey, LegacyKey    string
	BaseURL, V1URL, CurlV2, CurlV1 string
	// Issued are the ids of the keys this run made; Previous, those of the
	// active demo keys before it, which it revokes once its own are printed.
	Issued, Previous []uuid.UUID
	// LeftEndpoints are the webhook endpoints the Previous keys registered,
	// which outlive them: the output names them, as keys revoke does.
	LeftEndpoints []webhooks.Endpoint
}

// demoCmd makes (or, when it exists, reuses) the demo organization named
// --name and its sandbox organization, both seeded with demo data, and
// prints a live key, a test key (routed to the sandbox, so it never sees or
// changes live data) and a legacy sk_live_ key for v1. A second run reuses
// both organizations as they are, prints new keys and then revokes the ones
// the previous run printed.
//
// A run whose output fails revokes the keys it made, as keys create does
// (revokeUnseen), and leaves the previous run's keys active: they are still
// the keys someone has, and a failed run changes no key anyone holds.
func demoCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, output := newFlags("demo")
	name := fs.String("name", "Demo Rental House", "organization name (the organization of that name that an earlier run made is reused; one it did not make is refused)")
	if err := parseNoArgs(fs, output, args); err != nil {
		return err
	}
	db, cfg, err := openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	var r demoResult
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		r = demoResult{} // a transaction run again (a deadlock) starts afresh
		return seedDemo(ctx, tx, *name, &r)
	})
	if err != nil {
		return err
	}
	host := baseURL(cfg.Addr)
	r.BaseURL, r.V1URL = host+"/api/v2", host+"/api/v1"
	r.CurlV2 = fmt.Sprintf("curl -s -H 'Authorization: Bearer %s' %s/health", r.LiveKey, r.BaseURL)
	r.CurlV1 = fmt.Sprintf("curl -s -H 'Authorization: Bearer %s' '%s/equipment?limit=2'", r.LegacyKey, r.V1URL)
	if err := revokeUnseen(ctx, db, printDemo(stdout, *output, &r), r.Issued...); err != nil {
		return err
	}
	for _, id := range r.Previous {
		if err := tenancy.RevokeKey(ctx, db, id); err != nil {
			return fmt.Errorf("the new keys are printed, but revoking the previous run's key %s failed (the next run revokes it): %w", id, err)
		}
	}
	return nil
}

// printDemo writes r in the --output format.
func printDemo(stdout io.Writer, output string, r *demoResult) error {
	if output == "json" {
		notMoved := r.ShowcaseNotMoved
		if notMoved == nil {
			notMoved = []string{}
		}
		return printJSON(stdout, map[string]any{"organization_id": r.OrganizationID, "sandbox_organization_id": r.SandboxID,
			"reused": r.Reused, "showcase_moved": r.ShowcaseMoved, "showcase_not_moved": notMoved, "live_key": r.LiveKey, "test_key": r.TestKey, "legacy_key": r.LegacyKey,
			"base_url": r.BaseURL, "v1_url": r.V1URL, "curl": r.CurlV2, "curl_v1": r.CurlV1,
			"previous_keys_webhook_endpoints": endpointsJSON(r.LeftEndpoints)})
	}
	what := "seeded"
	switch {
	case r.Reused && r.ShowcaseMoved:
		what = "reused (data kept, next week's showcase moved to next week again; the keys printed by the previous run are revoked)"
	case r.Reused:
		what = "reused (data kept; the keys printed by the previous run are revoked)"
	}
	_, err := fmt.Fprintf(stdout, `demo organization %s %s
  sandbox organization %s (where the test key reads and writes)
  live key:   %s
  test key:   %s
  legacy key: %s   (v1)
  try v2:     %s
  try v1:     %s
`, r.OrganizationID, what, r.SandboxID, r.LiveKey, r.TestKey, r.LegacyKey, r.CurlV2, r.CurlV1)
	for _, why := range r.ShowcaseNotMoved {
		if err == nil {
			_, err = fmt.Fprintf(stdout, "  note:       %s\n", why)
		}
	}
	if err == nil {
		err = printLeftEndpoints(stdout, "  ", "note:       the previous run's keys", r.LeftEndpoints)
	}
	return err
}

// seedDemo finds or creates the demo organization and its sandbox, seeds
// new ones, and issues the demo keys.
func seedDemo(ctx context.Context, tx bun.Tx, name string, r *demoResult) error {
	// Two runs at once must not both create the organization.
	if err := demo.Lock(ctx, tx); err != nil {
		return err
	}
	name, err := tenancy.CleanName(name)
	if err != nil {
		return fmt.Errorf("--name: %w", err)
	}
	org, err := demo.FindOrganization(ctx, tx, name)
	if err != nil {
		return err
	}
	if org == nil {
		if org, err = tenancy.CreateOrganization(ctx, tx, name, nil); err != nil {
			return err
		}
		if err := demo.MarkOrganization(ctx, tx, org.OrgID()); err != nil {
			return err
		}
		if err := demo.Seed(ctx, tx, tenancy.Tenant{Org: org.OrgID()}); err != nil {
			return err
		}
	} else {
		r.Reused = true
		if err := refreshShowcase(ctx, tx, org.OrgID(), r); err != nil {
			return err
		}
	}
	sandbox, err := tenancy.SandboxOrganization(ctx, tx, org.ID)
	if err != nil {
		return err
	}
	if sandbox == nil {
		if sandbox, err = tenancy.CreateOrganization(ctx, tx, sandboxName(name), &org.ID); err != nil {
			return err
		}
		if err := demo.Seed(ctx, tx, tenancy.Tenant{Org: sandbox.OrgID(), Demo: true}); err != nil {
			return err
		}
	} else if err := refreshShowcase(ctx, tx, sandbox.OrgID(), r); err != nil {
		return err
	}
	r.OrganizationID, r.SandboxID = org.ID, sandbox.ID
	// Read under the lock: a run that started after this one's keys were
	// issued lists them here, so the later of two runs revokes the earlier
	// one's keys and never the other way round.
	if r.Previous, err = activeDemoKeys(ctx, tx, org.ID); err != nil {
		return err
	}
	for _, id := range r.Previous {
		eps, err := webhooks.EndpointsOfKey(ctx, tx, org.OrgID(), id)
		if err != nil {
			return err
		}
		r.LeftEndpoints = append(r.LeftEndpoints, eps...)
	}
	issue := func(keyName string, mode apikey.Mode, scopes []tenancy.Scope) (string, error) {
		k, err := tenancy.CreateKey(ctx, tx, tenancy.NewKey{OrganizationID: org.ID, Name: keyName, Scopes: scopes, Mode: mode})
		if err != nil {
			return "", err
		}
		r.Issued = append(r.Issued, k.ID)
		return k.Secret, nil
	}
	if r.LiveKey, err = issue("demo live key", apikey.Live, tenancy.AllScopes); err != nil {
		return err
	}
	if r.TestKey, err = issue("demo test key", apikey.Test, tenancy.AllScopes); err != nil {
		return err
	}
	r.LegacyKey, err = issue("demo legacy key", apikey.Legacy, tenancy.AllScopes)
	return err
}

// refreshShowcase moves a reused organization's demo timeline back, so that
// its planner showcase is next week again (demo.Refresh) and the README's
// walkthrough answers as on the day of the first run, and notes in r that
// it did.
func refreshShowcase(ctx context.Context, tx bun.Tx, org tenancy.OrganizationID, r *demoResult) error {
	done, err := demo.Refresh(ctx, tx, tenancy.Tenant{Org: org}, time.Now())
	r.ShowcaseMoved = r.ShowcaseMoved || done.Moved
	if done.Skipped != "" {
		r.ShowcaseNotMoved = append(r.ShowcaseNotMoved, done.Skipped)
	}
	return err
}

// activeDemoKeys lists the ids of org's demo keys not revoked.
func activeDemoKeys(ctx context.Context, tx bun.Tx, org uuid.UUID) ([]uuid.UUID, error) {
	keys, err := tenancy.ListKeys(ctx, tx, org)
	if err != nil {
		return nil, err
	}
	var ids []uuid.UUID
	for _, k := range keys {
		if demoKeyNames[k.Name] && k.RevokedAt == nil {
			ids = append(ids, k.ID)
		}
	}
	return ids, nil
}

// baseURL is the URL the printed curl lines reach a server listening on
// addr (EVENTAPI_ADDR) at: its host when it names one, localhost when it
// names every interface (":8080", "0.0.0.0:8080", "[::]:8080"), port 8080
// when addr has none. It was localhost always, which a server bound to one
// other address does not answer.
func baseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "", "8080"
	}
	switch ip := net.ParseIP(host); {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		host = "localhost"
	case ip != nil && ip.To4() == nil:
		host = "[" + host + "]"
	}
	return "http://" + host + ":" + port
}

// sandboxSuffix ends the name of the demo organization's sandbox.
const sandboxSuffix = " (sandbox)"

// sandboxName is the name of the sandbox of the demo organization named
// name: name with sandboxSuffix, name cut (by characters, trailing spaces
// dropped) so that the whole fits tenancy.MaxNameLength. A valid --name of
// 191 to 200 characters was refused as too long before, for its sandbox's.
func sandboxName(name string) string {
	if r := []rune(name); len(r)+len([]rune(sandboxSuffix)) > tenancy.MaxNameLength {
		name = strings.TrimSpace(string(r[:tenancy.MaxNameLength-len([]rune(sandboxSuffix))]))
	}
	return name + sandboxSuffix
}

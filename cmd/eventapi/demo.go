package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/storage/demo"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func demoCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, output := newFlags("demo")
	name := fs.String("name", "Demo Rental House", "organization name")
	if _, err := parse(fs, output, args); err != nil {
		return err
	}
	db, cfg, err := openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	var live, test *tenancy.CreatedKey
	var orgID string
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		org, err := tenancy.CreateOrganization(ctx, tx, *name, nil)
		if err != nil {
			return err
		}
		orgID = org.ID.String()
		if err := demo.Seed(ctx, tx, tenancy.Tenant{Org: org.OrgID()}); err != nil {
			return err
		}
		if live, err = tenancy.CreateKey(ctx, tx, tenancy.NewKey{OrganizationID: org.ID, Name: "demo live key",
			Scopes: tenancy.AllScopes, Mode: apikey.Live}); err != nil {
			return err
		}
		test, err = tenancy.CreateKey(ctx, tx, tenancy.NewKey{OrganizationID: org.ID, Name: "demo test key",
			Scopes: tenancy.AllScopes, Mode: apikey.Test})
		return err
	})
	if err != nil {
		return err
	}
	base := "http://localhost" + portOf(cfg.Addr)
	curl := fmt.Sprintf("curl -s -H 'Authorization: Bearer %s' %s/api/v2/health", live.Secret, base)
	if *output == "json" {
		return printJSON(stdout, map[string]any{"organization_id": orgID, "live_key": live.Secret, "test_key": test.Secret,
			"base_url": base + "/api/v2", "curl": curl})
	}
	fmt.Fprintf(stdout, "demo organization %s seeded\n  live key: %s\n  test key: %s\n  try:      %s\n", orgID, live.Secret, test.Secret, curl)
	_ = os.Stdout.Sync()
	return nil
}

func portOf(addr string) string {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[i:]
		}
	}
	return ":8080"
}

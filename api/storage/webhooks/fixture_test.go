package webhooks_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// orgWithAChange makes an organization named name with one client, whose
// creation is the change the test's deliveries carry, and returns them
// with exec, which runs a statement on db or fails the test.
func orgWithAChange(t *testing.T, db *bun.DB, name string) (org, client uuid.UUID, exec func(sql string, args ...any)) {
	t.Helper()
	org, client = uuid.New(), uuid.New()
	exec = func(sql string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(sql, args...).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO organizations (id, name) VALUES (?, ?)", org, name)
	exec("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'Delivered')", client, org)
	return org, client, exec
}

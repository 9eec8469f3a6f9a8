package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
)

// TestDirectURLRefused: a direct migration URL that reaches a pooler is
// told to reach PostgreSQL directly; the pooler setting, which does not
// apply to it, is not suggested. Other errors, and the service's own URL,
// keep the database's message.
func TestDirectURLRefused(t *testing.T) {
	server := errors.New("FATAL: unsupported startup parameter: statement_timeout (SQLSTATE 08P01)")
	refused := &database.RefusedParameter{Param: "statement_timeout", Err: server}
	other := errors.New("connection refused")
	direct := config.Config{MigrateDatabaseURL: "postgres://postgres@127.0.0.1:6432/eventapi"}
	for _, tc := range []struct {
		name      string
		cfg       config.Config
		err       error
		says, not string
	}{
		{"direct URL at a pooler", direct, refused, "EVENTAPI_MIGRATE_DATABASE_URL must reach PostgreSQL directly", "EVENTAPI_DATABASE_POOLER"},
		{"the service's URL at a pooler", config.Config{}, refused, "EVENTAPI_DATABASE_POOLER=transaction", "EVENTAPI_MIGRATE_DATABASE_URL"},
		{"another failure", direct, other, "connection refused", "directly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := directURLRefused(tc.cfg, tc.err)
			if !strings.Contains(got.Error(), tc.says) || strings.Contains(got.Error(), tc.not) {
				t.Fatalf("%v: want it to say %q and not %q", got, tc.says, tc.not)
			}
			if !errors.Is(got, tc.err) && !errors.Is(got, server) {
				t.Fatalf("%v does not wrap the server's error", got)
			}
		})
	}
}

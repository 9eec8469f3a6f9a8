package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// missingDatabase is the URL of a database that does not exist yet, dropped
// at the test's end if the test created it.
func missingDatabase(t testing.TB) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "eventapi_test_created_" + hex.EncodeToString(b[:])
	admin, err := database.Open(context.Background(), pgtest.AdminURL(), database.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		_, _ = admin.NewRaw("DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name)).Exec(context.Background())
	})
	u, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// With --output json, `migrate … --create-database` says whether it created
// the database ("created"), as the text output's "created database" line
// does; without the flag the key is absent, nothing having been tried.
func TestMigrateJSONSaysWhetherItCreatedTheDatabase(t *testing.T) {
	tests := []struct {
		name    string
		db      func(testing.TB) string
		args    []string
		created any // nil: no "created" key
	}{
		{"up creates a missing database", missingDatabase, []string{"migrate", "up", "--create-database"}, true},
		{"up finds it there", pgtest.NewEmptyDatabase, []string{"migrate", "up", "--create-database"}, false},
		{"down finds it there", pgtest.NewDatabase, []string{"migrate", "down", "--all", "--create-database"}, false},
		{"status finds it there", pgtest.NewDatabase, []string{"migrate", "status", "--create-database"}, false},
		{"up without the flag", pgtest.NewEmptyDatabase, []string{"migrate", "up"}, nil},
		{"status without the flag", pgtest.NewDatabase, []string{"migrate", "status"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("EVENTAPI_DATABASE_URL", tt.db(t))
			out, err := runCLI(t, append(tt.args, "--output", "json")...)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := out["migrations"].([]any); !ok {
				t.Fatalf("output %v lacks its migrations", out)
			}
			got, ok := out["created"]
			if tt.created == nil && ok || tt.created != nil && got != tt.created {
				t.Fatalf("created = %v (present %v), want %v", got, ok, tt.created)
			}
		})
	}
}

package database_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"
)

// unprivilegedRole is a role of the test server with no privileges, made
// once and left in place (roles are the server's, not a database's).
const unprivilegedRole = "eventapi_test_unprivileged"

// asUnprivileged returns a connection of db switched to unprivilegedRole
// (made when missing), for the checks that a service role without some
// privilege still gets an answer; the role is reset and the connection
// returned at the test's end.
func asUnprivileged(t *testing.T, db *bun.DB) bun.Conn {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `DO $$ BEGIN
			IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '`+unprivilegedRole+`') THEN
				CREATE ROLE `+unprivilegedRole+` NOLOGIN;
			END IF;
		EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- made by a concurrent run
		END $$`); err != nil {
		t.Fatalf("the unprivileged role: %v", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SET ROLE "+unprivilegedRole); err != nil {
		_ = conn.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.ExecContext(ctx, "RESET ROLE")
		_ = conn.Close()
	})
	return conn
}

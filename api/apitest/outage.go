package apitest

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// RefuseDatabase makes the env's database refuse new connections and ends
// the open ones, a real outage as the service sees one; restore lets it
// take connections again (the pool reconnects on its own).
func (e *Env) RefuseDatabase(t testing.TB) (restore func()) {
	t.Helper()
	ctx := context.Background()
	var name string
	if err := e.Svc.DB.NewRaw("SELECT current_database()").Scan(ctx, &name); err != nil {
		t.Fatal(err)
	}
	admin := pgtest.Open(t)
	if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS false"); err != nil {
		t.Fatal(err)
	}
	restore = func() {
		if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true"); err != nil {
			t.Error(err)
		}
	}
	if _, err := admin.NewRaw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()", name).Exec(ctx); err != nil {
		restore()
		t.Fatal(err)
	}
	return restore
}

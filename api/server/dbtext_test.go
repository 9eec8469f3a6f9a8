package server_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestNoDatabaseTextInResponses forces database failures through real
// requests; apitest fails any response that carries database text.
func TestNoDatabaseTextInResponses(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")

	t.Run("value the database refuses", func(t *testing.T) {
		res := org.Post("/api/v2/clients", map[string]any{"name": "nul \u0000 byte"})
		if res.Status != 422 || res.ErrorCode() != "validation_error" {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})

	t.Run("NUL or invalid UTF-8 in a free-text query parameter", func(t *testing.T) {
		for _, path := range []string{
			"/api/v2/clients?search=a%00b",
			"/api/v2/equipment?category=%00",
			"/api/v2/clients?search=%ff%fe",
		} {
			res := org.Get(path)
			if res.Status != 422 || res.ErrorCode() != "validation_error" {
				t.Errorf("%s: %d %s", path, res.Status, res.Body)
			}
		}
	})

	t.Run("lost connection", func(t *testing.T) {
		if res := org.Get("/api/v2/clients"); res.Status != 200 {
			t.Fatalf("warm-up: %d", res.Status)
		}
		ctx := context.Background()
		var name string
		if err := env.Svc.DB.NewRaw("SELECT current_database()").Scan(ctx, &name); err != nil {
			t.Fatal(err)
		}
		admin := pgtest.Open(t)
		if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS false"); err != nil {
			t.Fatal(err)
		}
		defer admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true")
		if _, err := admin.NewRaw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()", name).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		res := org.Get("/api/v2/clients")
		if res.Status != 503 || res.ErrorCode() != "service_unavailable" || res.Header.Get("Retry-After") == "" {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
}

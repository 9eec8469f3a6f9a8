package server_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
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
		defer env.RefuseDatabase(t)()
		res := org.Get("/api/v2/clients")
		if res.Status != 503 || res.ErrorCode() != "service_unavailable" || res.Header.Get("Retry-After") == "" {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
}

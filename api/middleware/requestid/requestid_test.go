package requestid_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/middleware/requestid"
	"github.com/eventapi/eventapi/platform/telemetry"
)

func TestEveryRequestGetsAFreshUUID(t *testing.T) {
	tests := []struct {
		name     string
		incoming string // X-Request-Id sent by the caller
	}{
		{"no header", ""},
		{"a caller's uuid is not trusted", "6f1c2a9e-0000-4000-8000-000000000001"},
		{"a caller's junk is not trusted", "'; DROP TABLE x; --"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var inContext string
			app := fiber.New()
			app.Use(requestid.New())
			app.Get("/", func(c *fiber.Ctx) error {
				inContext = telemetry.RequestID(c.UserContext())
				return c.SendStatus(204)
			})
			req := httptest.NewRequest("GET", "/", nil)
			if tt.incoming != "" {
				req.Header.Set("X-Request-Id", tt.incoming)
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			id := resp.Header.Get("X-Request-Id")
			if _, err := uuid.Parse(id); err != nil {
				t.Fatalf("X-Request-Id %q is not a uuid", id)
			}
			if id == tt.incoming || seen[id] {
				t.Fatalf("X-Request-Id %q was not generated fresh", id)
			}
			seen[id] = true
			if inContext != id {
				t.Fatalf("request context carries %q, response says %q", inContext, id)
			}
		})
	}
}

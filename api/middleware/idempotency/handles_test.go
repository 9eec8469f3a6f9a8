package idempotency

import (
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/edge"
)

// TestHandles: the middleware takes over a write of POST, PATCH or DELETE
// sent with an Idempotency-Key header (empty too: it is then refused) on a
// path a route of the method serves; any other request goes on untouched,
// and the server's write slot takes its slot before it (Handles is what it
// asks).
func TestHandles(t *testing.T) {
	serves := func(method, path string) bool { return path == "/served" }
	m := NewMiddleware(Config{Store: edge.NewMemory(), Sealer: testSealer(t), Serves: serves})
	defer m.Close()
	var handled atomic.Bool
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error {
		handled.Store(m.Handles(c))
		return c.SendStatus(fiber.StatusNoContent)
	})
	for _, tt := range []struct {
		method, path string
		key          string // "-": no header
		want         bool
	}{
		{"POST", "/served", "k", true},
		{"PATCH", "/served", "k", true},
		{"DELETE", "/served", "k", true},
		{"POST", "/served", "", true},
		{"POST", "/served", "-", false},
		{"PUT", "/served", "k", false},
		{"GET", "/served", "k", false},
		{"HEAD", "/served", "k", false},
		{"POST", "/other", "k", false},
		{"DELETE", "/other", "k", false},
	} {
		req := httptest.NewRequest(tt.method, tt.path, nil)
		if tt.key != "-" {
			req.Header[Header] = []string{tt.key}
		}
		handled.Store(false)
		if _, err := app.Test(req, -1); err != nil {
			t.Fatal(err)
		}
		if got := handled.Load(); got != tt.want {
			t.Errorf("%s %s with key %q: handled %v, want %v", tt.method, tt.path, tt.key, got, tt.want)
		}
	}
}

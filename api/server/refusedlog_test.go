package server_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestRefusalsShareOneLogThrottle: the WARN line about 503 answers is
// written once per rest.RefusedLogEvery for the whole process, whichever
// error handler renders the answer. A 503 inside a keyed write is rendered
// by the Idempotency-Key middleware (to store what it answers), which had
// a throttle of its own: its 503 wrote a second line within the interval.
func TestRefusalsShareOneLogThrottle(t *testing.T) {
	var log logtest.Buffer
	env := apitest.NewLogging(t, &log, apitest.WithRoutes(func(v2 fiber.Router) {
		v2.Post("/unavailable", func(*fiber.Ctx) error { return errs.New(errs.ServiceUnavailable, "database unavailable") })
	}))
	org := env.NewOrg("Acme")
	// Straight to the app: the route is the test's, not the document's.
	for _, key := range []string{"", "refused-1"} {
		req := httptest.NewRequest("POST", "/api/v2/unavailable", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+org.Key)
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := env.Svc.App.Test(req, -1)
		if err != nil || resp.StatusCode != 503 {
			t.Fatalf("Idempotency-Key %q: %v %v", key, resp, err)
		}
	}
	if n := strings.Count(log.String(), "requests refused: service unavailable"); n != 1 {
		t.Fatalf("%d WARN lines about 503 answers for two within %v, want 1:\n%s", n, "10s", log.String())
	}
}

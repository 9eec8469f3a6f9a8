package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// TestAPanicIsMetered: a handler's panic, answered 500, is in the request
// duration histogram with its route and status like any other error. The
// recoverer sat above the metrics (and the span and the access log), so a
// panic unwound past them and the one kind of 500 that is always a bug
// never reached the server-errors alert.
func TestAPanicIsMetered(t *testing.T) {
	u := metricsEndpoint(t)
	env := apitest.New(t, func(_ *config.Config, o *server.Options) { o.Metrics = true },
		apitest.WithRoutes(func(v2 fiber.Router) {
			v2.Get("/boom", func(*fiber.Ctx) error { panic("a bug") })
		}))
	org := env.NewOrg("Panicky")
	count := func() uint64 {
		for _, m := range scrape(t, u)["http_server_request_duration_seconds"].GetMetric() {
			ls := labels(m)
			if ls["http_request_method"]+" "+ls["http_route"]+" "+ls["http_response_status_code"] == "GET /api/v2/boom 500" {
				return m.GetHistogram().GetSampleCount()
			}
		}
		return 0
	}
	before := count()
	req := httptest.NewRequest("GET", "/api/v2/boom", nil)
	req.Header.Set("Authorization", "Bearer "+org.Key)
	resp, err := env.Svc.App.Test(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Fatalf("status %d, want 500", resp.StatusCode)
	}
	if got := count(); got != before+1 {
		t.Fatalf("GET /api/v2/boom 500 samples: %d, want %d", got, before+1)
	}
}

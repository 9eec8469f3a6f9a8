package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestErrorLogLevels: a failure of the service is logged as an error; a
// refusal that is expected while draining or while a dependency is down
// (503, a readiness probe answers one every second) is a warning; a
// client's error is not logged here (the access log has it).
func TestErrorLogLevels(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		level string
	}{
		{"internal", errors.New("boom"), "level=ERROR"},
		{"unavailable", errs.New(errs.ServiceUnavailable, "draining"), "level=WARN"},
		{"client error", errs.New(errs.NotFound, "no such record"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.NewTextHandler(&out, nil)))})
			app.Get("/x", func(*fiber.Ctx) error { return tt.err })
			if _, err := app.Test(httptest.NewRequest("GET", "/x", nil)); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.level == "" && got != "" || tt.level != "" && !strings.Contains(got, tt.level) {
				t.Fatalf("log %q, want %q", got, tt.level)
			}
		})
	}
}

// TestRefusalsAreLoggedWithACount: a burst of 503s (a dependency down, a
// drain) is one WARN line per RefusedLogEvery with the count, not one per
// request: an outage behind PgBouncer wrote 4,686 such lines a second on one
// pod. Each refusal is still in the access log.
func TestRefusalsAreLoggedWithACount(t *testing.T) {
	var out bytes.Buffer
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.NewTextHandler(&out, nil)))})
	app.Get("/x", func(*fiber.Ctx) error { return errs.New(errs.ServiceUnavailable, "database unavailable") })
	const refusals = 100
	for range refusals {
		resp, err := app.Test(httptest.NewRequest("GET", "/x", nil))
		if err != nil || resp.StatusCode != 503 {
			t.Fatalf("refusal: %v %v", resp, err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// One line per RefusedLogEvery (10 s): two would need 100 requests to
	// take over 10 s; half as many lines as refusals is the per-request log.
	if len(lines) >= refusals/2 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "failures=1") ||
		!strings.Contains(lines[0], "database unavailable") {
		t.Fatalf("%d log lines for %d refusals, the first %q; want one WARN with the cause and a count", len(lines), refusals, lines[0])
	}
}

func TestIsV1Path(t *testing.T) {
	for path, want := range map[string]bool{
		"/api/v1": true, "/api/v1/equipment": true, "/API/V1/jobs": true, "/Api/v1/": true,
		"/api/v10/x": false, "/api/v2/events": false, "/api": false, "": false, "/x/api/v1": false,
	} {
		if got := IsV1Path(path); got != want {
			t.Errorf("IsV1Path(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestDatabaseErrorsReachingTheHandler: a database failure a store returned
// without converting it (a transaction that could not begin) is still
// answered as what it is: a refused or lost connection is 503 with
// Retry-After, never 500, and a plain error stays 500.
func TestDatabaseErrorsReachingTheHandler(t *testing.T) {
	_, refused := pgconn.Connect(context.Background(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=2")
	if refused == nil {
		t.Fatal("a connection to port 1 succeeded")
	}
	tests := []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"connection refused", fmt.Errorf("begin: %w", refused), 503, "1"},
		{"too many clients", fmt.Errorf("begin: %w", &pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"}), 503, "1"},
		{"unique violation", &pgconn.PgError{Code: "23505", Message: "duplicate key value violates unique constraint"}, 409, ""},
		{"plain", errors.New("boom"), 500, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Post("/api/v2/x", func(*fiber.Ctx) error { return tt.err })
			res, err := app.Test(httptest.NewRequest("POST", "/api/v2/x", nil))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status || res.Header.Get("Retry-After") != tt.retryAfter {
				t.Fatalf("%d Retry-After %q %s, want %d %q", res.StatusCode, res.Header.Get("Retry-After"), body, tt.status, tt.retryAfter)
			}
			if strings.Contains(string(body), "constraint") || strings.Contains(string(body), "clients already") {
				t.Errorf("database text reached the client: %s", body)
			}
		})
	}
}

// TestErrorCodeOfTheRenderedError: the code the request log records is the
// rendered error's v2 code; on v1, whose 400 BAD_REQUEST has no v2
// counterpart, a validation_error (a repeated query parameter, any check
// shared with v2) is bad_request, as v1's own checks report it.
func TestErrorCodeOfTheRenderedError(t *testing.T) {
	handler := ErrorHandler(slog.New(slog.DiscardHandler))
	for _, tc := range []struct {
		path string
		err  error
		want string
	}{
		{"/api/v2/x", errs.InvalidField("limit", "given twice"), "validation_error"},
		{"/api/v1/x", errs.InvalidField("limit", "given twice"), "bad_request"},
		{"/API/V1/x", errs.InvalidField("limit", "given twice"), "bad_request"},
		{"/api/v1/x", errs.New(errs.MalformedJSON, "not JSON"), "malformed_json"},
		{"/api/v1/x", errs.New(errs.NotFound, "no"), "not_found"},
	} {
		var got string
		app := fiber.New(fiber.Config{ErrorHandler: handler})
		app.Use(func(c *fiber.Ctx) error {
			_ = handler(c, tc.err)
			got = ErrorCodeOf(c)
			return nil
		})
		if _, err := app.Test(httptest.NewRequest("GET", tc.path, nil)); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %v: ErrorCodeOf %q, want %q", tc.path, tc.err, got, tc.want)
		}
	}
}

// TestRetryAfter: every 503 carries Retry-After, on both surfaces: the
// error's own wait when it names one, else DefaultRetryAfter (the rule is
// stated once, in ErrorHandler; docs/decisions.md). Other statuses carry
// it only when their error names a wait.
func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		err        error
		status     int
		retryAfter string
	}{
		{"503 naming no wait", "/api/v2/x", errs.New(errs.ServiceUnavailable, "down"), 503, "1"},
		{"503 naming no wait, wrapped", "/api/v2/x", fmt.Errorf("list: %w", errs.New(errs.ServiceUnavailable, "down")), 503, "1"},
		{"503 naming its own wait", "/api/v2/x", &errs.Error{Code: errs.ServiceUnavailable, Message: "starting", RetryAfter: 2}, 503, "2"},
		{"Fiber's 503", "/api/v2/x", fiber.ErrServiceUnavailable, 503, "1"},
		{"v1 503 naming no wait", "/api/v1/x", errs.New(errs.ServiceUnavailable, "down"), 503, "1"},
		{"v1 503 naming its own wait", "/api/v1/x", &errs.Error{Code: errs.ServiceUnavailable, Message: "starting", RetryAfter: 2}, 503, "2"},
		{"429 naming its wait", "/api/v2/x", &errs.Error{Code: errs.RateLimited, Message: "slow down", RetryAfter: 7}, 429, "7"},
		{"409 naming its wait", "/api/v2/x", &errs.Error{Code: errs.IdempotencyKeyInUse, Message: "in progress", RetryAfter: 1}, 409, "1"},
		{"409 naming none", "/api/v2/x", errs.New(errs.DuplicateRecord, "exists"), 409, ""},
		{"500", "/api/v2/x", errors.New("boom"), 500, ""},
		{"404", "/api/v1/x", errs.NotFoundOf("equipment"), 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Get(tc.path, func(*fiber.Ctx) error { return tc.err })
			res, err := app.Test(httptest.NewRequest("GET", tc.path, nil))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status || res.Header.Get(fiber.HeaderRetryAfter) != tc.retryAfter {
				t.Fatalf("%d Retry-After %q, want %d %q", res.StatusCode, res.Header.Get(fiber.HeaderRetryAfter), tc.status, tc.retryAfter)
			}
		})
	}
}

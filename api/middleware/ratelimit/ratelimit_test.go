package ratelimit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/ratelimit"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// downStore is an edge store whose every call fails, as when Redis is gone.
type downStore struct{ edge.Store }

func (downStore) Admit(context.Context, string, int, time.Duration) (edge.Decision, error) {
	return edge.Decision{}, edge.ErrUnavailable
}

type harness struct {
	app       *fiber.App
	calls     int
	log       *logtest.Buffer
	failOpens atomic.Int64
}

func newHarness(t *testing.T, store edge.Store, limit int, window time.Duration) *harness {
	t.Helper()
	h := &harness{log: &logtest.Buffer{}}
	log := slog.New(slog.NewJSONHandler(h.log, nil))
	h.app = fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(log)})
	mw := ratelimit.New(ratelimit.Config{Store: store, Window: window, Log: log, FailOpens: &h.failOpens,
		Bucket: func(*fiber.Ctx) (string, int) { return "test:" + t.Name(), limit }})
	handler := func(c *fiber.Ctx) error {
		h.calls++
		if strings.HasSuffix(c.Path(), "/missing") {
			return errs.NotFoundOf("thing")
		}
		d, ok := ratelimit.BucketFromContext(c.UserContext())
		if !ok {
			return errors.New("no bucket in context")
		}
		return c.JSON(fiber.Map{"remaining": d.Remaining})
	}
	h.app.Use("/api/v2", mw)
	h.app.Use("/api/v1", mw)
	h.app.Get("/api/v2/ok", handler)
	h.app.Get("/api/v2/missing", handler)
	h.app.Get("/api/v1/ok", handler)
	return h
}

type result struct {
	status            int
	limit, remaining  string
	reset, retryAfter string
	code, message     string
	details           map[string]any
}

func (h *harness) get(t *testing.T, path string) result {
	t.Helper()
	resp, err := h.app.Test(httptest.NewRequest("GET", path, nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return result{status: resp.StatusCode, limit: resp.Header.Get(ratelimit.HeaderLimit),
		remaining: resp.Header.Get(ratelimit.HeaderRemaining), reset: resp.Header.Get(ratelimit.HeaderReset),
		retryAfter: resp.Header.Get(fiber.HeaderRetryAfter), code: body.Error.Code, message: body.Error.Message,
		details: body.Error.Details}
}

func TestHeadersOnEveryResponse(t *testing.T) {
	h := newHarness(t, edge.NewMemory(), 3, time.Minute)
	tests := []struct {
		path      string
		status    int
		remaining string
		code      string
	}{
		{"/api/v2/ok", 200, "2", ""},
		{"/api/v2/missing", 404, "1", "not_found"},
		{"/api/v2/ok", 200, "0", ""},
		{"/api/v2/ok", 429, "0", "rate_limited"},
		{"/api/v2/missing", 429, "0", "rate_limited"},
	}
	for i, tt := range tests {
		r := h.get(t, tt.path)
		if r.status != tt.status || r.code != tt.code {
			t.Fatalf("request %d: %d %q, want %d %q", i, r.status, r.code, tt.status, tt.code)
		}
		if r.limit != "3" || r.remaining != tt.remaining {
			t.Fatalf("request %d: limit %q remaining %q, want 3 and %s", i, r.limit, r.remaining, tt.remaining)
		}
		reset, err := time.Parse(time.RFC3339, r.reset)
		if err != nil || !strings.HasSuffix(r.reset, "Z") || time.Until(reset) > time.Minute+time.Second {
			t.Fatalf("request %d: X-RateLimit-Reset %q is not an RFC 3339 UTC time within the window", i, r.reset)
		}
		if tt.status == 429 {
			secs, err := strconv.Atoi(r.retryAfter)
			if err != nil || secs < 1 || secs > 60 {
				t.Fatalf("request %d: Retry-After %q", i, r.retryAfter)
			}
			if r.message != "3 requests per minute exceeded" || r.details["limit"] != float64(3) || r.details["window_seconds"] != float64(60) {
				t.Fatalf("request %d: message %q details %v", i, r.message, r.details)
			}
		} else if r.retryAfter != "" {
			t.Fatalf("request %d: Retry-After on an admitted request", i)
		}
	}
	if h.calls != 3 {
		t.Fatalf("handler ran %d times, want 3: rejected requests must not be processed", h.calls)
	}
}

func TestV1RejectionUsesTheV1Envelope(t *testing.T) {
	h := newHarness(t, edge.NewMemory(), 1, time.Minute)
	if r := h.get(t, "/api/v1/ok"); r.status != 200 || r.limit != "1" {
		t.Fatalf("first: %+v", r)
	}
	r := h.get(t, "/api/v1/ok")
	if r.status != 429 || r.code != "RATE_LIMITED" || r.message != "1 requests per minute exceeded" || r.retryAfter == "" || r.remaining != "0" {
		t.Fatalf("second: %+v", r)
	}
}

func TestFailsOpenCountedAndLoggedSparingly(t *testing.T) {
	h := newHarness(t, downStore{}, 5, time.Minute)
	const n = 50
	for i := 0; i < n; i++ {
		r := h.get(t, "/api/v2/ok")
		if r.status != 200 || r.limit != "5" || r.remaining != "4" || r.reset == "" {
			t.Fatalf("request %d during the outage: %+v", i, r)
		}
	}
	if h.calls != n {
		t.Fatalf("handler ran %d times, want %d", h.calls, n)
	}
	if got := h.failOpens.Load(); got != n {
		t.Fatalf("FailOpens grew by %d, want %d", got, n)
	}
	if lines := h.log.Lines(); lines != 1 {
		t.Fatalf("%d log lines for %d failures, want 1 per %v", lines, n, ratelimit.LogEvery)
	}
}

// TestEachLimitersOutageLineNamesIt: a process's two limiters (v2's per
// organization, v1's per key) each log their own outage line, and the line
// says whose it is, so that one line's count is not read as the pod's.
func TestEachLimitersOutageLineNamesIt(t *testing.T) {
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	app := fiber.New()
	for _, name := range []string{"v2", "v1"} {
		app.Use("/api/"+name, ratelimit.New(ratelimit.Config{Name: name, Store: downStore{}, Window: time.Minute, Log: log,
			Bucket: func(*fiber.Ctx) (string, int) { return name + ":" + t.Name(), 5 }}))
		app.Get("/api/"+name+"/ok", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) })
	}
	for _, path := range []string{"/api/v2/ok", "/api/v1/ok", "/api/v2/ok"} {
		resp, err := app.Test(httptest.NewRequest("GET", path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != fiber.StatusNoContent {
			t.Fatalf("GET %s during the outage: %d, want it admitted", path, resp.StatusCode)
		}
	}
	failures := map[string]float64{}
	for line := range strings.Lines(logs.String()) {
		var entry struct {
			Msg      string  `json:"msg"`
			Limiter  string  `json:"limiter"`
			Failures float64 `json:"failures"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if entry.Msg == "rate limiter failing open: edge store unavailable" {
			failures[entry.Limiter] += entry.Failures
		}
	}
	// The second v2 failure is held back by v2's interval, not by v1's line.
	if len(failures) != 2 || failures["v2"] != 1 || failures["v1"] != 1 {
		t.Fatalf("failing-open lines' failures by limiter: %v, want one line each for v2 and v1 with 1\n%s", failures, logs)
	}
}

func TestFormatting(t *testing.T) {
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	resets := []struct {
		in   time.Time
		want string
	}{
		{at, "2026-04-01T10:00:00Z"},
		{at.Add(time.Millisecond), "2026-04-01T10:00:01Z"},
		{at.Add(999 * time.Millisecond).In(time.FixedZone("X", 3600)), "2026-04-01T10:00:01Z"},
	}
	for _, tt := range resets {
		if got := ratelimit.FormatReset(tt.in); got != tt.want {
			t.Errorf("FormatReset(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	retries := []struct {
		in   time.Duration
		want int
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1001 * time.Millisecond, 2}, {59500 * time.Millisecond, 60}}
	for _, tt := range retries {
		if got := ratelimit.RetryAfterSeconds(tt.in); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// waitingStore is an edge store that answers only when the request's
// context ends, as a batch in flight does for an admission whose request
// is cancelled meanwhile.
type waitingStore struct{ edge.Store }

func (waitingStore) Admit(ctx context.Context, _ string, _ int, _ time.Duration) (edge.Decision, error) {
	<-ctx.Done()
	return edge.Decision{}, fmt.Errorf("%w: %w", edge.ErrUnavailable, ctx.Err())
}

// TestACancelledRequestIsNoOutage: an admission that ends because its own
// request was cancelled (the drain abandoning it) is not counted as a
// fail-open nor logged as the store's failure; it was, and a healthy Redis
// showed on the fail-open alert.
func TestACancelledRequestIsNoOutage(t *testing.T) {
	var failOpens atomic.Int64
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(log)})
	app.Use(func(c *fiber.Ctx) error {
		ctx, cancel := context.WithCancel(c.UserContext())
		cancel()
		c.SetUserContext(ctx)
		return c.Next()
	})
	app.Use(ratelimit.New(ratelimit.Config{Store: waitingStore{}, Window: time.Minute, Log: log, FailOpens: &failOpens,
		Bucket: func(*fiber.Ctx) (string, int) { return "test:cancelled", 5 }}))
	app.Get("/api/v2/ok", func(c *fiber.Ctx) error { return c.SendStatus(200) })
	resp, err := app.Test(httptest.NewRequest("GET", "/api/v2/ok", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := failOpens.Load(); n != 0 {
		t.Fatalf("FailOpens = %d for a cancelled request, want 0", n)
	}
	if lines := logs.Lines(); lines != 0 {
		t.Fatalf("%d log lines for a cancelled request, want none", lines)
	}
}

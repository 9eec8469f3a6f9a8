package requestlog_test

import (
	"errors"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/middleware/recoverer"
	reqlog "github.com/eventapi/eventapi/api/middleware/requestlog"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// sink records what the middleware hands over: the Sink is the boundary
// (the real one, *requestlog.Writer, buffers and writes in the background).
type sink struct {
	mu      sync.Mutex
	records []requestlog.Record
}

func (s *sink) Add(r requestlog.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, r)
}

func (s *sink) all() []requestlog.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]requestlog.Record(nil), s.records...)
}

var (
	org    = uuid.MustParse("6f1c2a9e-0000-4000-8000-000000000001")
	keyID  = uuid.MustParse("6f1c2a9e-0000-4000-8000-000000000002")
	prefix = "svc_live_abc"
)

// want is what a record must hold besides the fields every record has
// (id, request id, time, duration, method, path, API version).
type want struct {
	status    int
	route     string // "" : none
	errorCode string // "" : none
	principal bool   // organization, key id and key prefix present
	idemKey   string
	replayed  bool
}

// unrenderable is details no encoder can write: the render of an error
// carrying it fails.
type unrenderable struct{}

func (unrenderable) MarshalJSON() ([]byte, error) { return nil, errors.New("details refused") }

func TestOneRecordPerRequest(t *testing.T) {
	tests := []struct {
		name, method, path string
		headers            map[string]string
		want               want
	}{
		{"success", "GET", "/api/v2/things/42", nil,
			want{status: 200, route: "/api/v2/things/{id}", principal: true}},
		{"an error rendered by the error handler", "GET", "/api/v2/things/missing", nil,
			want{status: 404, route: "/api/v2/things/{id}", errorCode: "not_found", principal: true}},
		{"an error whose render failed: the 500 internal_error answered", "GET", "/api/v2/things/unrenderable", nil,
			want{status: 500, route: "/api/v2/things/{id}", errorCode: "internal_error", principal: true}},
		{"refused by auth: no principal, the route from the resolver", "GET", "/api/v2/things/42",
			map[string]string{"X-Refuse": "1"},
			want{status: 401, route: "/api/v2/things/{id}", errorCode: "invalid_credentials"}},
		{"a write with an Idempotency-Key", "POST", "/api/v2/things", map[string]string{"Idempotency-Key": "k-1"},
			want{status: 201, route: "/api/v2/things", principal: true, idemKey: "k-1"}},
		{"a replayed stored error: the code read from the body", "POST", "/api/v2/things",
			map[string]string{"Idempotency-Key": "k-2", "X-Replay": "1"},
			want{status: 409, route: "/api/v2/things", errorCode: "duplicate_record", principal: true, idemKey: "k-2", replayed: true}},
		{"a panic: 500 internal_error, re-raised for the recoverer", "GET", "/api/v2/things/panic", nil,
			want{status: 500, route: "/api/v2/things/{id}", errorCode: "internal_error", principal: true}},
		{"an unknown path: no route", "GET", "/api/v2/nowhere", nil,
			want{status: 404, errorCode: "not_found", principal: true}},
	}

	s := &sink{}
	handler := rest.ErrorHandler(slog.New(slog.DiscardHandler))
	// Not Immutable (unlike the real app): the records outlive the request,
	// so they must not point into Fiber's reused buffers.
	app := fiber.New(fiber.Config{ErrorHandler: handler})
	app.Use(recoverer.New(recoverer.Config{Log: slog.New(slog.DiscardHandler)}))
	v2 := app.Group("/api/v2",
		reqlog.New(reqlog.Config{Sink: s, Routes: route.New(app), ErrorHandler: handler, APIVersion: "v2"}),
		func(c *fiber.Ctx) error { // stands in for the auth middleware
			if c.Get("X-Refuse") != "" {
				return tenancy.ErrInvalidCredentials
			}
			c.SetUserContext(tenancy.WithPrincipal(c.UserContext(),
				&tenancy.Principal{OrganizationID: org, KeyID: keyID, KeyPrefix: prefix}))
			return c.Next()
		})
	v2.Get("/things/:id", func(c *fiber.Ctx) error {
		switch c.Params("id") {
		case "missing":
			return errs.New(errs.NotFound, "thing not found")
		case "panic":
			panic("boom")
		case "unrenderable":
			return &errs.Error{Code: errs.Validation, Message: "bad", Details: unrenderable{}}
		}
		return c.SendStatus(200)
	})
	v2.Post("/things", func(c *fiber.Ctx) error {
		if c.Get("X-Replay") != "" { // as the idempotency layer replays a stored error
			c.Set("Idempotent-Replayed", "true")
			c.Set("Content-Type", "application/json")
			return c.Status(409).SendString(`{"error":{"code":"duplicate_record","message":"taken"}}`)
		}
		return c.SendStatus(201)
	})
	v2.Use(func(c *fiber.Ctx) error { return errs.New(errs.NotFound, "no such path") })

	type sent struct {
		method, path, requestID string
		start, end              time.Time
		want                    want
	}
	var all []sent
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			req.Header.Set("User-Agent", "requestlog-test/1")
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			n := len(s.all())
			start := time.Now()
			resp, err := app.Test(req, -1)
			end := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.want.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want.status)
			}
			if got := len(s.all()) - n; got != 1 {
				t.Fatalf("%d records, want 1", got)
			}
			snt := sent{tt.method, tt.path, resp.Header.Get(rest.HeaderRequestID), start, end, tt.want}
			checkRecord(t, s.all()[n], snt.method, snt.path, snt.requestID, start, end, tt.want)
			all = append(all, snt)
		})
	}
	// Checked again after every request has run: a record that pointed into
	// a buffer a later request reused would have changed.
	t.Run("records unchanged by later requests", func(t *testing.T) {
		recs := s.all()
		if len(recs) != len(all) {
			t.Fatalf("%d records for %d requests", len(recs), len(all))
		}
		for i, snt := range all {
			checkRecord(t, recs[i], snt.method, snt.path, snt.requestID, snt.start, snt.end, snt.want)
		}
	})
}

func checkRecord(t *testing.T, r requestlog.Record, method, path, requestID string, start, end time.Time, w want) {
	t.Helper()
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if r.ID == uuid.Nil || r.ID.Version() != 7 {
		t.Errorf("id %v, want a UUIDv7", r.ID)
	}
	if requestID == "" || r.RequestID != requestID || r.ID.String() != requestID {
		t.Errorf("request id %q, id %v, want both the response's %q", r.RequestID, r.ID, requestID)
	}
	// The id carries created_at's millisecond: the request-id filter finds
	// the record within it.
	if at, ok := requestlog.IDTime(r.ID); !ok || !at.Equal(r.CreatedAt.Truncate(time.Millisecond)) {
		t.Errorf("id time %v, want created_at's millisecond %v", at, r.CreatedAt.Truncate(time.Millisecond))
	}
	if r.Method != method || r.Path != path || r.APIVersion != "v2" {
		t.Errorf("method %q path %q version %q, want %q %q v2", r.Method, r.Path, r.APIVersion, method, path)
	}
	if r.Status != w.status || str(r.Route) != w.route || str(r.ErrorCode) != w.errorCode {
		t.Errorf("status %d route %q error %q, want %d %q %q", r.Status, str(r.Route), str(r.ErrorCode), w.status, w.route, w.errorCode)
	}
	if w.principal {
		if r.OrganizationID == nil || *r.OrganizationID != org || r.KeyID == nil || *r.KeyID != keyID || str(r.KeyPrefix) != prefix {
			t.Errorf("org %v key %v prefix %q, want %v %v %q", r.OrganizationID, r.KeyID, str(r.KeyPrefix), org, keyID, prefix)
		}
	} else if r.OrganizationID != nil || r.KeyID != nil || r.KeyPrefix != nil {
		t.Errorf("a refused request carries org %v key %v prefix %q", r.OrganizationID, r.KeyID, str(r.KeyPrefix))
	}
	if str(r.IdempotencyKey) != w.idemKey || r.IdempotentReplayed != w.replayed {
		t.Errorf("idempotency key %q replayed %v, want %q %v", str(r.IdempotencyKey), r.IdempotentReplayed, w.idemKey, w.replayed)
	}
	if str(r.UserAgent) != "requestlog-test/1" || str(r.IP) == "" {
		t.Errorf("user agent %q ip %q", str(r.UserAgent), str(r.IP))
	}
	// The time is the request's start (to the microsecond PostgreSQL keeps)
	// and the duration lies within what the caller measured around it.
	if r.CreatedAt.Before(start.Truncate(time.Microsecond)) || r.CreatedAt.After(end) {
		t.Errorf("created at %v, outside the request [%v, %v]", r.CreatedAt, start, end)
	}
	if elapsed := float64(end.Sub(start).Microseconds()) / 1000; r.DurationMS < 0 || r.DurationMS > elapsed {
		t.Errorf("duration %v ms, want within [0, %v] ms", r.DurationMS, elapsed)
	}
}

// TestNoSinkPassesThrough: without a sink the middleware only calls the
// next handler.
func TestNoSinkPassesThrough(t *testing.T) {
	app := fiber.New()
	app.Use(reqlog.New(reqlog.Config{}))
	app.Get("/x", func(c *fiber.Ctx) error { return c.SendStatus(204) })
	resp, err := app.Test(httptest.NewRequest("GET", "/x", nil), -1)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("%v %v", resp, err)
	}
}

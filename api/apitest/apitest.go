// Package apitest runs the real app in-process for black-box HTTP tests: a
// fresh PostgreSQL database per test package, the real edge store (Redis,
// isolated by a key prefix), organizations and keys created through tenancy,
// and a client that sends requests through app.Test and decodes envelopes.
// Every response goes through the contract hook, which validates it against
// the OpenAPI document.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// Env is a running app with its database.
type Env struct {
	T   testing.TB
	Svc *server.Service
	Cfg config.Config
}

// Option adjusts the configuration or server options of New.
type Option func(*config.Config, *server.Options)

// WithConfig edits the configuration.
func WithConfig(f func(*config.Config)) Option {
	return func(c *config.Config, _ *server.Options) { f(c) }
}

// WithRoutes registers extra protected v2 routes.
func WithRoutes(f func(v2 fiber.Router)) Option {
	return func(_ *config.Config, o *server.Options) { o.Routes = f }
}

// New starts the app on a fresh database (one per call) and real Redis.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	return newEnv(t, nil, "", opts)
}

// NewLogging is New with the app's log lines (warnings and errors, as JSON)
// written to log, for tests of what the service logs.
func NewLogging(t testing.TB, log io.Writer, opts ...Option) *Env {
	t.Helper()
	return newEnv(t, log, "warn", opts)
}

// NewAccessLogging is NewLogging at level info: with the access line of
// every request as well.
func NewAccessLogging(t testing.TB, log io.Writer, opts ...Option) *Env {
	t.Helper()
	return newEnv(t, log, "info", opts)
}

func newEnv(t testing.TB, logTo io.Writer, level string, opts []Option) *Env {
	t.Helper()
	cfg, err := config.FromEnv(func(k string) string {
		switch k {
		case "EVENTAPI_DATABASE_URL":
			return pgtest.NewDatabase(t)
		case "EVENTAPI_REDIS_URL":
			return pgtest.RedisURL()
		case "EVENTAPI_DATABASE_POOLER":
			return pgtest.Pooler()
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	// A loaded test machine can take longer than the production 50 ms Redis
	// bound; tests of that bound (api/edgetest) set their own timeout.
	// Every statement on a tenant table must name the organization: the
	// guard is on the database before any job of the service runs, and
	// its check runs after the service has stopped (cleanups run last
	// first).
	o := server.Options{RedisPrefix: "eventapi-test:" + uuid.NewString() + ":", RedisTimeout: time.Second,
		JSONEncoder: comparedJSON(t), PrepareDB: func(db *bun.DB) { storagetest.Install(t, db) }}
	for _, opt := range opts {
		opt(&cfg, &o)
	}
	log := telemetry.NewLogger(io.Discard, "error")
	switch {
	case logTo != nil:
		log = telemetry.NewLogger(logTo, level)
	case testing.Verbose():
		log = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	svc, err := server.Open(context.Background(), cfg, log, o)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RedisURL != "" {
		// The client's own timeout is tight (50 ms) by design; on a loaded
		// machine give Redis tries for a minute, the suite's usual bound,
		// before declaring it missing (5 s ran out once on a machine at
		// load 20, whose Redis took 1.1 s for single commands).
		var err error
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if err = svc.Edge.Ping(context.Background()); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("Redis is required for tests and is not reachable at %s: %v", cfg.RedisURL, err)
		}
	}
	svc.StartWebhooks()
	t.Cleanup(func() { _ = svc.App.Shutdown(); _ = svc.Close() })
	return &Env{T: t, Svc: svc, Cfg: cfg}
}

// Org is an organization with a key.
type Org struct {
	ID  uuid.UUID
	Key string
	env *Env
}

// OrgID is the organization's id as the store functions take it.
func (o *Org) OrgID() tenancy.OrganizationID { return tenancy.OrganizationID{UUID: o.ID} }

// Tenant is the organization as a live key acts for it (not demo).
func (o *Org) Tenant() tenancy.Tenant { return tenancy.Tenant{Org: o.OrgID()} }

// NewOrg creates an organization and a live key with every scope.
func (e *Env) NewOrg(name string) *Org {
	return e.NewOrgWithKey(name, apikey.Live, tenancy.AllScopes...)
}

// NewOrgWithKey creates an organization and one key of mode with scopes.
func (e *Env) NewOrgWithKey(name string, mode apikey.Mode, scopes ...tenancy.Scope) *Org {
	e.T.Helper()
	ctx := context.Background()
	org, err := tenancy.CreateOrganization(ctx, e.Svc.DB, name, nil)
	if err != nil {
		e.T.Fatal(err)
	}
	o := &Org{ID: org.ID, env: e}
	o.Key = e.NewKey(org.ID, mode, scopes...)
	return o
}

// WithKey is o calling with another key of its organization, created with
// mode and scopes.
func (o *Org) WithKey(mode apikey.Mode, scopes ...tenancy.Scope) *Org {
	o.env.T.Helper()
	return &Org{ID: o.ID, Key: o.env.NewKey(o.ID, mode, scopes...), env: o.env}
}

// SandboxOf creates a sandbox organization of o and returns it as o's own
// test key (every scope) acts for it: the key is o's, the records it makes
// and the rows it reaches are the sandbox's.
func (o *Org) SandboxOf(name string) *Org {
	o.env.T.Helper()
	sandbox, err := tenancy.CreateOrganization(context.Background(), o.env.Svc.DB, name, &o.ID)
	if err != nil {
		o.env.T.Fatal(err)
	}
	return &Org{ID: sandbox.ID, Key: o.env.NewKey(o.ID, apikey.Test, tenancy.AllScopes...), env: o.env}
}

// NewKey creates a key for org and returns its secret.
func (e *Env) NewKey(org uuid.UUID, mode apikey.Mode, scopes ...tenancy.Scope) string {
	e.T.Helper()
	k, err := tenancy.CreateKey(context.Background(), e.Svc.DB, tenancy.NewKey{
		OrganizationID: org, Name: "test key", Scopes: scopes, Mode: mode})
	if err != nil {
		e.T.Fatal(err)
	}
	return k.Secret
}

// Response is a decoded HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *Response) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Decode decodes the body into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Data returns body.data as a map.
func (r *Response) Data() map[string]any {
	d, _ := r.JSON()["data"].(map[string]any)
	return d
}

// List returns body.data as a list of maps.
func (r *Response) List() []map[string]any {
	raw, _ := r.JSON()["data"].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, x := range raw {
		m, _ := x.(map[string]any)
		out = append(out, m)
	}
	return out
}

// ErrorCode returns body.error.code.
func (r *Response) ErrorCode() string {
	e, _ := r.JSON()["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// ErrorMessage returns body.error.message.
func (r *Response) ErrorMessage() string {
	e, _ := r.JSON()["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// RequiredScopes returns the details.required of a 403 insufficient_scope,
// sorted.
func (r *Response) RequiredScopes() []string {
	required, _ := r.ErrorDetails()["required"].([]any)
	var out []string
	for _, s := range required {
		if name, ok := s.(string); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// FieldIssue returns the issue details.fields gives for the field name of
// a 422, or "" when it names none.
func (r *Response) FieldIssue(name string) string {
	fs, _ := r.ErrorDetails()["fields"].([]any)
	for _, f := range fs {
		if m, _ := f.(map[string]any); m["field"] == name {
			issue, _ := m["issue"].(string)
			return issue
		}
	}
	return ""
}

// ErrorDetails returns body.error.details when it is an object.
func (r *Response) ErrorDetails() map[string]any {
	e, _ := r.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// Request is one HTTP request to send.
type Request struct {
	Method string
	Path   string
	// Body is marshalled to JSON unless it is a string or []byte.
	Body    any
	Key     string
	Headers map[string]string
}

// Do sends a request with o's key.
func (o *Org) Do(method, path string, body any, headers ...string) *Response {
	o.env.T.Helper()
	r := Request{Method: method, Path: path, Body: body, Key: o.Key, Headers: map[string]string{}}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Headers[headers[i]] = headers[i+1]
	}
	return o.env.Send(r)
}

// Get sends GET with o's key.
func (o *Org) Get(path string) *Response { o.env.T.Helper(); return o.Do(http.MethodGet, path, nil) }

// Post sends POST with o's key.
func (o *Org) Post(path string, body any) *Response {
	o.env.T.Helper()
	return o.Do(http.MethodPost, path, body)
}

// Patch sends PATCH with o's key.
func (o *Org) Patch(path string, body any) *Response {
	o.env.T.Helper()
	return o.Do(http.MethodPatch, path, body)
}

// Delete sends DELETE with o's key.
func (o *Org) Delete(path string) *Response {
	o.env.T.Helper()
	return o.Do(http.MethodDelete, path, nil)
}

// Send sends r through the app and checks the response against the contract.
func (e *Env) Send(r Request) *Response {
	e.T.Helper()
	var body io.Reader
	var raw []byte
	switch b := r.Body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			e.T.Fatal(err)
		}
	}
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(r.Method, r.Path, body)
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := e.Svc.App.Test(req, 30_000)
	if err != nil {
		e.T.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	res := &Response{Status: resp.StatusCode, Header: resp.Header, Body: out}
	checkEnvelope(e.T, r, res)
	CheckContract(e.T, r.Method, r.Path, raw, res)
	return res
}

// checkEnvelope enforces what holds for every response: a uuid X-Request-Id,
// equal to error.request_id on v2 errors, and no database text in any body.
func checkEnvelope(t testing.TB, r Request, res *Response) {
	t.Helper()
	id := res.Header.Get("X-Request-Id")
	if _, err := uuid.Parse(id); err != nil {
		t.Errorf("%s %s: X-Request-Id %q is not a uuid", r.Method, r.Path, id)
	}
	if res.Status >= 400 && strings.HasPrefix(r.Path, "/api/v2") {
		e, _ := res.JSON()["error"].(map[string]any)
		if e == nil {
			t.Errorf("%s %s: %d without error envelope: %s", r.Method, r.Path, res.Status, res.Body)
		} else if e["request_id"] != id {
			t.Errorf("%s %s: error.request_id %v != X-Request-Id %s", r.Method, r.Path, e["request_id"], id)
		}
	}
	// RFC 9110, section 11.6.1: a 401 names the scheme that would work.
	if res.Status == 401 && res.Header.Get("WWW-Authenticate") != rest.WWWAuthenticate {
		t.Errorf("%s %s: 401 with WWW-Authenticate %q, want %q", r.Method, r.Path, res.Header.Get("WWW-Authenticate"), rest.WWWAuthenticate)
	} else if res.Status != 401 && res.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("%s %s: %d with WWW-Authenticate", r.Method, r.Path, res.Status)
	}
	// A 500 is a bug; 503 service_unavailable is the documented answer when
	// a dependency is down.
	if res.Status >= 500 && res.Status != 503 {
		t.Errorf("%s %s: server error %d: %s", r.Method, r.Path, res.Status, res.Body)
	}
	// Database text can only leak through an error: a 2xx body holds the
	// caller's own data and opaque cursors, which may contain any letters.
	if res.Status >= 400 {
		AssertNoDatabaseText(t, res.Body)
	}
}

// databaseMarkers are fragments of PostgreSQL and driver error text.
var databaseMarkers = []string{"SQLSTATE", "pq:", "pgx", "pgconn", "violates", "constraint", "duplicate key", "syntax error at", "relation \"", "column \"", "ERROR:", "bun:"}

// AssertNoDatabaseText fails when body contains database error text.
func AssertNoDatabaseText(t testing.TB, body []byte) {
	t.Helper()
	for _, m := range databaseMarkers {
		if bytes.Contains(body, []byte(m)) {
			t.Errorf("response leaks database text %q: %s", m, body)
		}
	}
}

package idempotency

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest/contract"
	"github.com/eventapi/eventapi/api/middleware/etag"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

func TestValidKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"a", true},
		{"order-2026-04-01/retry #1", true},
		{strings.Repeat("k", 255), true},
		{" ~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}", true},
		{"", false},
		{strings.Repeat("k", 256), false},
		{"tab\tinside", false},
		{"new\nline", false},
		{"del\x7f", false},
		{"caf\u00e9", false},
	}
	for _, tt := range tests {
		if got := ValidKey(tt.key); got != tt.want {
			t.Errorf("ValidKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// TestStoreKeyIsScopedByOrganization: a key's record is scoped by
// (effective organization, key) (docs/edge.md, "Idempotency-Key"), and its
// edge-store name is also the associated data of the sealed answer: two
// organizations that send the same key must never share a name, or the
// second would be replayed the first's answer. The name is the same for
// the same pair (a retry finds its record), and the key is hashed, so the
// name holds none of a key's braces, which would end the Redis hash tag
// early.
func TestStoreKeyIsScopedByOrganization(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	tests := []struct {
		name       string
		org1, org2 uuid.UUID
		key1, key2 string
		same       bool
	}{
		{"one key, two organizations", a, b, "order-1", "order-1", false},
		{"two keys, one organization", a, a, "order-1", "order-2", false},
		{"a retry", a, a, "order-1", "order-1", true},
		{"one key with braces, two organizations", a, b, "{order}-1", "{order}-1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			one, other := StoreKey(tt.org1, tt.key1), StoreKey(tt.org2, tt.key2)
			if (one == other) != tt.same {
				t.Fatalf("StoreKey(%s, %q) = %q, StoreKey(%s, %q) = %q: same %v, want %v",
					tt.org1, tt.key1, one, tt.org2, tt.key2, other, one == other, tt.same)
			}
			if strings.ContainsAny(one+other, "{}") {
				t.Fatalf("names %q, %q hold a brace", one, other)
			}
		})
	}
}

// TestSameAsNoBody: on a route whose body is optional only the empty
// object, however spaced, is the same request as no body.
func TestSameAsNoBody(t *testing.T) {
	for _, tt := range []struct {
		body string
		none bool
	}{
		{"", true}, {"{}", true}, {" { \n } ", true},
		{`{"previous_secret_expires_in":0}`, false}, {"[]", false}, {"null", false}, {"{", false},
	} {
		got := sameAsNoBody([]byte(tt.body))
		if (len(got) == 0) != tt.none {
			t.Errorf("sameAsNoBody(%q) = %q, want no body: %v", tt.body, got, tt.none)
		}
	}
}

func TestFingerprint(t *testing.T) {
	base := Fingerprint("POST", "/api/v2/clients", []byte(`{"name":"A","email":"a@b.c","n":1.50}`))
	tests := []struct {
		name         string
		method, path string
		body         string
		same         bool
	}{
		{"key order and whitespace do not matter", "POST", "/api/v2/clients", "{ \"email\" : \"a@b.c\",\n \"n\": 1.50, \"name\": \"A\" }", true},
		{"a different value", "POST", "/api/v2/clients", `{"name":"B","email":"a@b.c","n":1.50}`, false},
		{"a number's literal text counts", "POST", "/api/v2/clients", `{"name":"A","email":"a@b.c","n":1.5}`, false},
		{"another path", "POST", "/api/v2/events", `{"name":"A","email":"a@b.c","n":1.50}`, false},
		{"another method", "PATCH", "/api/v2/clients", `{"name":"A","email":"a@b.c","n":1.50}`, false},
	}
	for _, tt := range tests {
		got := Fingerprint(tt.method, tt.path, []byte(tt.body))
		if (hex.EncodeToString(got) == hex.EncodeToString(base)) != tt.same {
			t.Errorf("%s: same = %v, want %v", tt.name, !tt.same, tt.same)
		}
	}
	id := "0b6f5d1e-8a7c-4c1e-9f00-aa11bb22cc33"
	lower := Fingerprint("PATCH", "/api/v2/quotes/"+id, []byte(`{"notes":"n1"}`))
	if upper := Fingerprint("PATCH", "/api/v2/quotes/"+strings.ToUpper(id), []byte(`{"notes":"n1"}`)); !bytes.Equal(lower, upper) {
		t.Error("an id in upper case: another fingerprint, want the same record's")
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":{"d":[1,2,{"z":null,"y":true}],"c":"<&>"}}`, `{"a":{"c":"<&>","d":[1,2,{"y":true,"z":null}]},"b":1}`},
		{"  [3, 2 ,1] ", `[3,2,1]`},
		{"", ""},
		{"   ", ""},
		{"not json", "not json"},
		{`{"a":1} trailing`, `{"a":1} trailing`},
		{`{"a":1}{"b":2}`, `{"a":1}{"b":2}`},
		{`{"a":1`, `{"a":1`},
		// Trailing closers the decoder stops at: not JSON, so the raw
		// bytes, never the canonical form of the value before them.
		{`{"a":1}}`, `{"a":1}}`},
		{`{"a":1}]`, `{"a":1}]`},
		{"[1]]] ", "[1]]] "},
		// Invalid UTF-8 is not JSON the handler accepts either: decoding
		// it to U+FFFD would make it the same request as a valid body.
		{"{\"a\":\"x\xff\"}", "{\"a\":\"x\xff\"}"},
		// Nor a lone surrogate escape, which the decoder also turns into
		// U+FFFD: its raw bytes, not the canonical form of "y\ufffd".
		{`{"a":"y\ud800"}`, `{"a":"y\ud800"}`},
		{`{"a":"y\udfff"}`, `{"a":"y\udfff"}`},
		{`{"a":"y\ufffd"}`, "{\"a\":\"y\ufffd\"}"},
		{`{"a":"\ud83c\udfaa"}`, "{\"a\":\"\U0001F3AA\"}"}, // a pair is one character
	}
	for _, tt := range tests {
		if got := string(Canonical([]byte(tt.in))); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWithRequestID(t *testing.T) {
	in := `{"error":{"code":"validation_error","message":"m","details":{"request_id":"x"},"request_id":"11111111-1111-1111-1111-111111111111"}}`
	want := `{"error":{"code":"validation_error","message":"m","details":{"request_id":"x"},"request_id":"new"}}`
	if got := string(withRequestID([]byte(in), "new")); got != want {
		t.Fatalf("got %s", got)
	}
	if got := string(withRequestID([]byte(`{"data":{}}`), "new")); got != `{"data":{}}` {
		t.Fatalf("body without request id changed: %s", got)
	}
}

// countingStore counts calls into the edge store; broken makes them fail.
type countingStore struct {
	edge.Store
	calls  atomic.Int64
	broken bool
}

func (s *countingStore) Claim(ctx context.Context, k string, v []byte, ttl time.Duration) ([]byte, bool, error) {
	s.calls.Add(1)
	if s.broken {
		return nil, false, edge.ErrUnavailable
	}
	return s.Store.Claim(ctx, k, v, ttl)
}

func (s *countingStore) Get(ctx context.Context, k string) ([]byte, bool, error) {
	s.calls.Add(1)
	return s.Store.Get(ctx, k)
}

func (s *countingStore) Set(ctx context.Context, k string, v []byte, ttl time.Duration) error {
	s.calls.Add(1)
	return s.Store.Set(ctx, k, v, ttl)
}

// clientBody is a client as the API renders it: what the test's handler
// answers, so the exchange can be checked against the document.
const clientBody = `{"data":{"id":"6f1c1f4e-3f2b-4b0e-9a43-1f7d0b3e2a11","name":"A","email":null,"phone":null,` +
	`"address":null,"city":null,"state":null,"zip":null,"notes":null,"demo":false,` +
	`"created_at":"2026-06-01T08:00:00Z","updated_at":"2026-06-01T08:00:00Z"}}`

// These cases never reach the database (DB is nil): the ones that must not
// touch it, and replays answered by the edge store alone. The handlers
// stand in for documented operations (POST and GET /clients, DELETE of a
// reservation), so every answer is checked against the OpenAPI document.
func TestWithoutTheDatabase(t *testing.T) {
	org := uuid.New()
	const (
		clients     = "/api/v2/clients"
		reservation = "/api/v2/equipment_reservations/0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10"
	)
	body := `{"name":"A"}`
	done := record{State: stateDone, Fingerprint: Fingerprint("POST", clients, []byte(body)),
		Status: 201, ContentType: "application/json", Body: []byte(clientBody)}
	doneErr := record{State: stateDone, Fingerprint: Fingerprint("POST", clients, []byte(body)),
		Status: 422, ContentType: "application/json",
		Body: []byte(`{"error":{"code":"validation_error","message":"name: is taken","details":{"fields":[{"field":"name","issue":"is taken"}]},"request_id":"11111111-1111-1111-1111-111111111111"}}`)}
	sealer, err := seal.New([]byte(strings.Repeat("k", seal.KeySize)))
	if err != nil {
		t.Fatal(err)
	}
	// The same response as done, sealed as the middleware stores it, and
	// sealed for another key (a record copied under another name).
	sealedBody, _ := sealer.Seal([]byte(clientBody), []byte(StoreKey(org, "k")))
	doneSealed := done
	doneSealed.Body, doneSealed.Sealed = sealedBody, true
	foreignBody, _ := sealer.Seal([]byte(clientBody), []byte(StoreKey(org, "other")))
	doneForeign := done
	doneForeign.Body, doneForeign.Sealed = foreignBody, true
	tests := []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		body    string
		broken  bool
		seed    *record
		status  int
		code    string
		calls   int64
		ran     bool
		replay  bool
		// want is the replayed body when it is not the seed's own.
		want string
	}{
		{name: "no header: no store call", method: "POST", path: clients, body: body, status: 201, ran: true},
		{name: "GET with a key: ignored", method: "GET", path: clients, headers: map[string]string{Header: "k"}, status: 200, ran: true},
		{name: "empty key", method: "POST", path: clients, headers: map[string]string{Header: ""}, body: body, status: 422, code: "validation_error"},
		{name: "key too long", method: "POST", path: clients, headers: map[string]string{Header: strings.Repeat("x", 256)}, body: body, status: 422, code: "validation_error"},
		{name: "control character", method: "DELETE", path: reservation, headers: map[string]string{Header: "a\x01b"}, status: 422, code: "validation_error"},
		{name: "store down: 503, not executed", method: "POST", path: clients, headers: map[string]string{Header: "k"}, body: body, broken: true,
			status: 503, code: "service_unavailable", calls: 1},
		{name: "replay from the edge store: one call", method: "POST", path: clients, headers: map[string]string{Header: "k"}, body: body, seed: &done,
			status: 201, calls: 1, replay: true},
		{name: "sealed replay from the edge store", method: "POST", path: clients, headers: map[string]string{Header: "k"}, body: body, seed: &doneSealed,
			status: 201, calls: 1, replay: true, want: clientBody},
		{name: "a record sealed for another key does not open", method: "POST", path: clients, headers: map[string]string{Header: "k"}, body: body, seed: &doneForeign,
			status: 500, code: "internal_error", calls: 1},
		{name: "replayed error names this request", method: "POST", path: clients, headers: map[string]string{Header: "k"}, body: body, seed: &doneErr,
			status: 422, code: "validation_error", calls: 1, replay: true},
		{name: "same key, other body: mismatch", method: "POST", path: clients, headers: map[string]string{Header: "k"}, body: `{"name":"B"}`, seed: &done,
			status: 409, code: "idempotency_key_mismatch", calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &countingStore{Store: edge.NewMemory(), broken: tt.broken}
			if tt.seed != nil {
				_ = store.Store.Set(context.Background(), StoreKey(org, "k"), tt.seed.encode(), time.Minute)
			}
			ran := false
			app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Use(func(c *fiber.Ctx) error {
				rest.EnsureRequestID(c)
				c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{OrganizationID: org}))
				// The rate limiter's headers, which every documented
				// answer carries.
				c.Set("X-RateLimit-Limit", "1000")
				c.Set("X-RateLimit-Remaining", "999")
				c.Set("X-RateLimit-Reset", "2026-06-01T08:01:00Z")
				return c.Next()
			})
			app.Use(etag.New(func(string, string) bool { return true })) // as in the service: a read's 200 carries its ETag
			app.Use(NewMiddleware(Config{Store: store, Sealer: sealer}).Handle)
			app.Post(clients, func(c *fiber.Ctx) error {
				ran = true
				c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
				return c.Status(201).SendString(clientBody)
			})
			app.Get(clients, func(c *fiber.Ctx) error {
				ran = true
				return rest.Page(c, []struct{}{}, nil)
			})
			app.Delete(reservation, func(c *fiber.Ctx) error {
				ran = true
				return rest.NoContent(c)
			})
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range tt.headers {
				req.Header[k] = []string{v}
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			var reqBody []byte
			if tt.body != "" {
				reqBody = []byte(tt.body)
			}
			contract.Assert(t, tt.method, tt.path, reqBody, &contract.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw})
			if resp.StatusCode != tt.status || (tt.code != "" && !strings.Contains(string(raw), `"code":"`+tt.code+`"`)) {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, raw, tt.status, tt.code)
			}
			if ran != tt.ran {
				t.Fatalf("handler ran = %v, want %v", ran, tt.ran)
			}
			if got := store.calls.Load(); got != tt.calls {
				t.Fatalf("%d edge store calls, want %d", got, tt.calls)
			}
			if got := resp.Header.Get(HeaderReplayed) == "true"; got != tt.replay {
				t.Fatalf("replayed = %v, want %v", got, tt.replay)
			}
			if tt.status == 503 && resp.Header.Get(fiber.HeaderRetryAfter) == "" {
				t.Fatal("503 without Retry-After")
			}
			if tt.replay && tt.status >= 400 {
				id := resp.Header.Get(rest.HeaderRequestID)
				if id == "" || !strings.Contains(string(raw), `"request_id":"`+id+`"`) {
					t.Fatalf("replayed error body %s does not carry X-Request-Id %s", raw, id)
				}
			}
			if tt.replay && tt.status < 400 {
				if want := cmp.Or(tt.want, string(tt.seed.Body)); string(raw) != want {
					t.Fatalf("replayed body %s, want %s", raw, want)
				}
			}
		})
	}
}

package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestHealthReportsPrincipal(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrgWithKey("Acme", apikey.Live, tenancy.EventsRead, tenancy.PickListsWrite)
	res := org.Get("/api/v2/health")
	if res.Status != 200 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	d := res.Data()
	if d["organization_id"] != org.ID.String() || d["sandbox"] != false || d["request_id"] != res.Header.Get("X-Request-Id") {
		t.Fatalf("health = %v", d)
	}
	scopes, _ := d["scopes"].([]any)
	if len(scopes) != 2 || scopes[0] != "events:read" || scopes[1] != "pick_lists:write" {
		t.Fatalf("scopes = %v", scopes)
	}
}

func TestAuthenticationFailuresAre401(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	// Revoked before its first use, so no cached lookup can let it through.
	revoked := env.NewKey(org.ID, apikey.Live, tenancy.EventsRead)
	ctx := context.Background()
	keys, _ := tenancy.ListKeys(ctx, env.Svc.DB, org.ID)
	for _, k := range keys {
		if k.Prefix == revoked[:12] {
			if err := tenancy.RevokeKey(ctx, env.Svc.DB, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	unknown, _ := apikey.Generate(apikey.Live)
	// The key with its last character changed (to one it is not).
	last := "0"
	if strings.HasSuffix(org.Key, last) {
		last = "1"
	}
	tests := []struct{ name, header string }{
		{"missing", ""},
		{"not bearer", "Basic abc"},
		{"malformed", "Bearer svc_live_short"},
		{"bad checksum", "Bearer " + org.Key[:len(org.Key)-1] + last},
		{"unknown", "Bearer " + unknown},
		{"revoked", "Bearer " + revoked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.header != "" {
				h["Authorization"] = tt.header
			}
			res := env.Send(apitest.Request{Method: "GET", Path: "/api/v2/health", Headers: h})
			if res.Status != 401 || res.ErrorCode() != "invalid_credentials" {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
	}
}

func TestEnvelopeErrors(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"unknown route", "GET", "/api/v2/nope", nil, 404, "not_found"},
		{"wrong method", "DELETE", "/api/v2/clients", nil, 405, "method_not_allowed"},
		{"malformed json", "POST", "/api/v2/clients", "{bad", 400, "malformed_json"},
		{"empty body", "POST", "/api/v2/clients", "", 400, "malformed_json"},
		{"array body", "POST", "/api/v2/clients", "[]", 422, "validation_error"},
		{"non-uuid id", "GET", "/api/v2/clients/123", nil, 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := org.Do(tt.method, tt.path, tt.body)
			if res.Status != tt.status || res.ErrorCode() != tt.code {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
	}
	res := org.Do("DELETE", "/api/v2/clients", nil)
	if allow := res.Header.Get("Allow"); allow != "GET, HEAD, POST" {
		t.Errorf("Allow = %q", allow)
	}
}

func TestOversizedBodyIs413(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	base := env.Listen(t)
	// Speak HTTP by hand: announce a body over the limit and send none of it.
	// The server must answer from the headers alone (a client still writing
	// the body would otherwise see the connection reset).
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", org.Key, 1<<20+1)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	apitest.CheckContract(t, "POST", "/api/v2/clients", nil, &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body})
	if resp.StatusCode != 413 || !strings.Contains(string(body), `"payload_too_large"`) ||
		resp.Header.Get("X-Request-Id") == "" || !strings.Contains(string(body), resp.Header.Get("X-Request-Id")) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestPanicIsA500WithoutItsCause(t *testing.T) {
	env := apitest.New(t, apitest.WithRoutes(func(v2 fiber.Router) {
		v2.Get("/boom", func(*fiber.Ctx) error { panic("secret internal detail") })
	}))
	org := env.NewOrg("Acme")
	req := httptest.NewRequest("GET", "/api/v2/boom", nil)
	req.Header.Set("Authorization", "Bearer "+org.Key)
	resp, err := env.Svc.App.Test(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(body), `"internal_error"`) || strings.Contains(string(body), "secret") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if !strings.Contains(string(body), resp.Header.Get("X-Request-Id")) {
		t.Fatal("error.request_id differs from X-Request-Id")
	}
}

func TestProbes(t *testing.T) {
	env := apitest.New(t)
	for _, path := range []string{"/livez", "/readyz"} {
		resp, err := env.Svc.App.Test(httptest.NewRequest("GET", path, nil))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", path, resp.StatusCode, err)
		}
	}
}

func TestReadyzFailsWhenPostgresIsGone(t *testing.T) {
	env := apitest.New(t)
	// Refuse new connections to this database and drop the open ones.
	defer env.RefuseDatabase(t)()
	resp, err := env.Svc.App.Test(httptest.NewRequest("GET", "/readyz", nil), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || !strings.Contains(string(body), "service_unavailable") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	apitest.AssertNoDatabaseText(t, body)
}

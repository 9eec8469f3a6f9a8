package server_test

import (
	"bufio"
	"fmt"
	"net/textproto"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// documentedNames are the answers' header names whose documented spelling
// is not the one fasthttp would normalize them to (docs/decisions.md,
// "Header names").
var documentedNames = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "ETag", "WWW-Authenticate"}

// TestHeaderNamesAreSpelledAsDocumented reads answers as they are on the
// wire (a Go client would canonicalize the names it reads): the rate-limit
// headers and ETag as the documents spell them, every other name in the
// canonical form, and no name twice, on answers of the handlers, the
// middlewares, the fallback and a refusal made while the request was read.
func TestHeaderNamesAreSpelledAsDocumented(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 8 }))
	org := env.NewOrg("Acme")
	limited := env.NewOrg("Limited")
	legacy := env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead)
	base := env.Listen(t)
	created := org.Post("/api/v2/clients", map[string]any{"name": "Spelled"})
	if created.Status != 201 {
		t.Fatalf("%d %s", created.Status, created.Body)
	}
	id := created.Data()["id"].(string)
	tag := org.Get("/api/v2/clients/" + id).Header.Get("ETag")
	for range 8 {
		limited.Get("/api/v2/clients")
	}
	body := `{"name":"Key"}`
	keyed := fmt.Sprintf("POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer %s\r\n"+
		"Idempotency-Key: spelled-1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", org.Key, len(body), body)
	tests := []struct {
		name, request string
		status        int
		want          []string
	}{
		{"a record", rawGet("/api/v2/clients/"+id, org.Key), 200, []string{"X-RateLimit-Limit", "ETag", "X-Request-Id", "Cache-Control"}},
		{"not modified", rawGet("/api/v2/clients/"+id, org.Key, "If-None-Match: "+tag), 304, []string{"ETag", "X-RateLimit-Reset"}},
		{"a keyed write", keyed, 201, []string{"X-RateLimit-Remaining"}},
		{"its replay", keyed, 201, []string{"Idempotent-Replayed", "X-RateLimit-Remaining"}},
		{"another method", "DELETE /api/v2/clients HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + org.Key + "\r\n\r\n", 405, []string{"Allow", "X-RateLimit-Limit"}},
		{"rate limited", rawGet("/api/v2/clients", limited.Key), 429, []string{"Retry-After", "X-RateLimit-Reset"}},
		{"compressed", rawGet("/api/v2/openapi.json", "", "Accept-Encoding: gzip"), 200, []string{"Content-Encoding", "Vary", "ETag"}},
		{"no key", rawGet("/api/v2/clients", ""), 401, []string{"WWW-Authenticate"}},
		{"v1", rawGet("/api/v1/equipment", legacy), 200, []string{"Deprecation", "Sunset", "X-RateLimit-Limit"}},
		{"refused while read", rawGet("/api/v2/clients", org.Key, "X-Big: "+strings.Repeat("a", 20<<10)), 431, []string{"X-Request-Id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, names := headerNames(t, base, tt.request)
			if status != tt.status {
				t.Fatalf("status %d, want %d; headers %v", status, tt.status, names)
			}
			seen := map[string]string{}
			for _, name := range names {
				want := textproto.CanonicalMIMEHeaderKey(name)
				for _, d := range documentedNames {
					if strings.EqualFold(d, name) {
						want = d
					}
				}
				if name != want {
					t.Errorf("header %q, want %q", name, want)
				}
				if first, twice := seen[strings.ToLower(name)]; twice {
					t.Errorf("header %q sent twice (also as %q)", name, first)
				}
				seen[strings.ToLower(name)] = name
			}
			for _, w := range tt.want {
				if seen[strings.ToLower(w)] != w {
					t.Errorf("no header %q in %v", w, names)
				}
			}
		})
	}
}

// rawGet is a raw GET of path with key (none when empty) and more header lines.
func rawGet(path, key string, more ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: t\r\n", path)
	if key != "" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", key)
	}
	for _, h := range more {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// headerNames sends request on a connection of its own and returns the
// answer's status and its header names as they came.
func headerNames(t *testing.T, base, request string) (int, []string) {
	t.Helper()
	conn := rawSend(t, base, request)
	defer conn.Close()
	r := textproto.NewReader(bufio.NewReader(conn))
	line, err := r.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	var proto string
	var status int
	if _, err := fmt.Sscanf(line, "%s %d", &proto, &status); err != nil {
		t.Fatalf("status line %q: %v", line, err)
	}
	var names []string
	for {
		line, err := r.ReadLine()
		if err != nil {
			t.Fatal(err)
		}
		if line == "" {
			return status, names
		}
		name, _, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("header line %q", line)
		}
		names = append(names, name)
	}
}

package server_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestUnmatchedPathsOverTCP sends paths the router does not match as
// written (empty segments), or matches only after dropping a trailing
// slash, to the whole app: an empty segment is 404 under every method,
// never a 405 whose Allow names another method that is refused in turn.
func TestUnmatchedPathsOverTCP(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	base := env.Listen(t)
	auth := "Authorization: Bearer " + org.Key + "\r\n"
	json := "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"

	tests := []struct {
		name, line, headers string
		status              int
		code, allow         string
	}{
		{"GET //api/v2/events", "GET //api/v2/events", auth + "\r\n", 404, "not_found", ""},
		{"POST //api/v2/events", "POST //api/v2/events", auth + json, 404, "not_found", ""},
		{"GET //api/v2/events without a key", "GET //api/v2/events", "\r\n", 404, "not_found", ""},
		{"POST //api/v2/events without a key", "POST //api/v2/events", json, 404, "not_found", ""},
		{"GET /api/v2//events", "GET /api/v2//events", auth + "\r\n", 404, "not_found", ""},
		{"POST /api/v2//events", "POST /api/v2//events", auth + json, 404, "not_found", ""},
		{"FOO //api/v2/events", "FOO //api/v2/events", auth + "\r\n", 405, "method_not_allowed", ""},
		// Routing is strict: a trailing slash is another path, which no
		// route serves (an unknown method is still 405, with no Allow).
		{"GET /api/v2/events/", "GET /api/v2/events/", auth + "\r\n", 404, "not_found", ""},
		{"DELETE /api/v2/events/", "DELETE /api/v2/events/", auth + "\r\n", 404, "not_found", ""},
		{"FOO /api/v2/events/", "FOO /api/v2/events/", auth + "\r\n", 405, "method_not_allowed", ""},
		{"GET /API/V2/EVENTS", "GET /API/V2/EVENTS", auth + "\r\n", 404, "not_found", ""},
		{"POST /API/V2/EVENTS", "POST /API/V2/EVENTS", auth + json, 404, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, base, tt.line+" HTTP/1.1\r\nHost: test\r\n"+tt.headers, nil)
			assertEnvelope(t, resp, body, tt.status, tt.code)
			if allow := resp.Header.Get("Allow"); allow != tt.allow {
				t.Errorf("Allow = %q, want %q", allow, tt.allow)
			}
		})
	}
	t.Run("GET /api/v2/events is served", func(t *testing.T) {
		resp, body := rawExchange(t, base, "GET /api/v2/events HTTP/1.1\r\nHost: test\r\n"+auth+"\r\n", nil)
		if resp.StatusCode != 200 {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})
}

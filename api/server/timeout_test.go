package server_test

import (
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestStalledRequestIs408: a request whose headers or body stop arriving is
// answered 408 request_timeout in the envelope once the connection's read
// deadline passes (30 s in production, shortened here).
func TestStalledRequestIs408(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	env.Svc.App.Server().ReadTimeout = 300 * time.Millisecond
	base := env.Listen(t)
	head := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + org.Key + "\r\n"
	for _, tt := range []struct{ name, request string }{
		{"a body cut short", head + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na"},
		{"headers cut short", head + "Content-Type: appl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, base, tt.request, nil)
			assertEnvelope(t, resp, body, 408, "request_timeout")
		})
	}
}

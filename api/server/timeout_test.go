package server_test

import (
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestStalledRequestIs408: a request whose headers or body stop arriving is
// answered 408 request_timeout in its surface's envelope once the
// connection's read deadline passes (30 s in production, shortened here).
// fasthttp has reset the request by then; the connection remembers its
// surface.
func TestStalledRequestIs408(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	legacy := env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite)
	env.Svc.App.Server().ReadTimeout = 300 * time.Millisecond
	base := env.Listen(t)
	v2 := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + org.Key + "\r\n"
	v1 := "PATCH /api/v1/equipment/0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10 HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + legacy + "\r\n"
	for _, tt := range []struct {
		name, request string
		v1            bool
	}{
		{"v2, a body cut short", v2 + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na", false},
		{"v2, headers cut short", v2 + "Content-Type: appl", false},
		{"v1, a body cut short", v1 + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na", true},
		{"v1, headers cut short", v1 + "Content-Type: appl", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, base, tt.request, nil)
			if tt.v1 {
				assertV1Envelope(t, resp, body, 408, "BAD_REQUEST")
			} else {
				assertEnvelope(t, resp, body, 408, "request_timeout")
			}
		})
	}
}

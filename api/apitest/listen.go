package apitest

import (
	"net"
	"testing"

	"github.com/eventapi/eventapi/api/server"
)

// Listen serves the app on a loopback port and returns its base URL
// (http://127.0.0.1:PORT). It stops with the test.
func (e *Env) Listen(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.Svc.App.Listener(server.Listener(ln)) }()
	return "http://" + ln.Addr().String()
}

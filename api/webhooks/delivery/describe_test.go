package delivery

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/webhook"
)

// TestDescribeTellsNoResolverAnswerApart: a host that resolves to an
// address that is not public (a real request to localhost, refused at
// dial) and a host that does not resolve (or whose lookup times out) get
// one text in the deliveries list, registration's: told apart, they say
// which internal names the deployment's resolver knows.
func TestDescribeTellsNoResolverAnswerApart(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(u.Host)
	_, dialErr := newClient(false).http.Get("https://localhost:" + port + "/h")
	if dialErr == nil {
		t.Fatal("a request to localhost went out")
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"resolved to loopback, refused at dial", dialErr},
		{"an address that is not public, wrapped", fmt.Errorf("dial: %w", webhook.ErrAddressNotAllowed)},
		{"no such host", &url.Error{Op: "Post", URL: "https://probe.example/", Err: &net.OpError{Op: "dial", Net: "tcp",
			Err: &net.DNSError{Err: "no such host", Name: "probe.example", IsNotFound: true}}}},
		{"the lookup timed out", &url.Error{Op: "Post", URL: "https://probe.example/", Err: &net.OpError{Op: "dial", Net: "tcp",
			Err: &net.DNSError{Err: "i/o timeout", Name: "probe.example", IsTimeout: true}}}},
		{"the resolver failed", &net.DNSError{Err: "server misbehaving", Name: "probe.example", IsTemporary: true}},
	} {
		if got := describe(tc.err, time.Second); got != unresolvedOrPrivate {
			t.Errorf("%s (%v): recorded as %q, want %q", tc.name, tc.err, got, unresolvedOrPrivate)
		}
	}
}

package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
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
	_, port := receiver(t)
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

// TestDescribeWordsConnectAndTLSFailures: each way a connection or its TLS
// fails gets its own words, from real failures where this machine can make
// them (an https URL answered in plain HTTP, a certificate of no trusted
// authority, a handshake never answered: the last waits connectTimeout).
func TestDescribeWordsConnectAndTLSFailures(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer plain.Close()
	selfSigned := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer selfSigned.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() { // accepts and never answers the TLS hello
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	get := func(u string) error {
		_, err := newClient(true).http.Get(u)
		if err == nil {
			t.Fatalf("GET %s succeeded", u)
		}
		return err
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"an https URL answered in plain HTTP", get(strings.Replace(plain.URL, "http://", "https://", 1)),
			"TLS handshake failed (is the endpoint serving https?)"},
		{"a self-signed certificate", get(selfSigned.URL), "the endpoint's TLS certificate is not signed by a trusted authority"},
		{"a handshake never answered", get("https://" + silent.Addr().String() + "/"), "no TLS handshake within 5s"},
		{"a certificate for another host", &url.Error{Op: "Post", URL: "https://probe.example/",
			Err: &tls.CertificateVerificationError{Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "probe.example"}}},
			"the endpoint's TLS certificate does not name its host"},
		{"an expired certificate", &tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.Expired}},
			"the endpoint's TLS certificate is expired or not yet valid"},
		{"a connect that timed out", &url.Error{Op: "Post", URL: "https://probe.example/",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}}, "could not connect within 5s"},
		{"the attempt's own timeout", fmt.Errorf("post: %w", context.DeadlineExceeded), "no response within 1s"},
	} {
		if got := describe(tc.err, time.Second); got != tc.want {
			t.Errorf("%s (%v): recorded as %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestRefusedIsTheClientsOwnRefusal: the refusals made before a request
// leaves (a plain http URL, a host that does not resolve or resolves to an
// address that is not public) are refused, alike, and no sample of the
// attempt-duration histogram; a request that went out and failed is not.
func TestRefusedIsTheClientsOwnRefusal(t *testing.T) {
	srv, port := receiver(t)
	strict, open := newClient(false).http, newClient(true).http
	_, private := strict.Get("https://localhost:" + port + "/h")
	_, plain := strict.Get("http://localhost:" + port + "/h")
	_, unresolved := strict.Get("https://no-such-host.invalid/h")
	_, untrusted := open.Get(srv.URL) // went out: the certificate is refused after the dial
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"an address that is not public", private, true},
		{"a URL that is not https", plain, true},
		{"a host that does not resolve", unresolved, true},
		{"a certificate of no trusted authority", untrusted, false},
		{"a timeout", context.DeadlineExceeded, false},
	} {
		if tc.err == nil {
			t.Fatalf("%s: the request succeeded", tc.name)
		}
		if got := refused(tc.err); got != tc.want {
			t.Errorf("%s (%v): refused %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// receiver starts a TLS receiver that answers 204, on a loopback port,
// for the test's time, and returns it and its port.
func receiver(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(u.Host)
	return srv, port
}

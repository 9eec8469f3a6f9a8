package delivery

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestClientBoundsResponseHeaders: a receiver's answer whose headers pass
// headerLimit fails the request; one just under it is read.
func TestClientBoundsResponseHeaders(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bytes int
		fail  bool
	}{
		{"small", 1 << 10, false},
		{"just under", headerLimit - 4<<10, false},
		{"over", headerLimit + 1<<10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("X-Padding", strings.Repeat("x", tc.bytes))
				w.WriteHeader(http.StatusNoContent)
			}))
			defer srv.Close()
			res, err := newClient(true).http.Get(srv.URL)
			if err == nil {
				res.Body.Close()
			}
			if (err != nil) != tc.fail {
				t.Errorf("%d header bytes: error %v, want failure %v", tc.bytes, err, tc.fail)
			}
			if want := "the endpoint's response headers exceeded 64 KiB"; err != nil && describe(err, time.Second) != want {
				t.Errorf("recorded as %q, want %q", describe(err, time.Second), want)
			}
		})
	}
}

// TestClientSendsHTTPSOnly: without EVENTAPI_WEBHOOK_ALLOW_PRIVATE a plain
// http URL (one registered while it was on) is refused before any
// connection, and recorded so; with it, the request goes out.
func TestClientSendsHTTPSOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	if _, err := newClient(false).http.Get(srv.URL); err == nil || describe(err, time.Second) != "refused: the endpoint URL is not https" {
		t.Fatalf("an http URL without allowPrivate: %v, recorded as %q", err, describe(err, time.Second))
	}
	res, err := newClient(true).http.Get(srv.URL)
	if err != nil {
		t.Fatalf("an http URL with allowPrivate: %v", err)
	}
	res.Body.Close()
}

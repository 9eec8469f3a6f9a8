package delivery

import (
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/eventapi/eventapi/platform/webhook"
)

// responseLimit is how much of a receiver's answer is read: only its
// status matters.
const responseLimit = 4 << 10

// headerLimit bounds a receiver's response headers (net/http's default is
// 1 MiB per response): a receiver answering with more fails the attempt.
const headerLimit = 64 << 10

// client is the HTTP client of deliveries: no proxy (a proxy would connect
// on our behalf, past the address check), every dial checked against
// webhook.Public (DNS rebinding), redirects not followed (a 3xx is a
// failure).
type client struct{ http *http.Client }

// connectTimeout bounds the TCP connect and, apart, the TLS handshake of
// an attempt, each within the attempt's own timeout (docs/webhooks.md,
// "Delivery and retries").
const connectTimeout = 5 * time.Second

func newClient(allowPrivate bool) *client {
	dialer := &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second, Control: webhook.Control(allowPrivate)}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    connectTimeout,
		ResponseHeaderTimeout:  0,
		MaxResponseHeaderBytes: headerLimit,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	var rt http.RoundTripper = tr
	if !allowPrivate {
		rt = httpsOnly{tr}
	}
	return &client{http: &http.Client{
		Transport:     rt,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// errNotHTTPS refuses a request to a plain http URL.
var errNotHTTPS = errors.New("the endpoint URL is not https")

// httpsOnly sends https requests only: an http URL registered while
// EVENTAPI_WEBHOOK_ALLOW_PRIVATE was on is refused once it is off, as its
// address would be, so full records never travel in clear text
// (docs/webhooks.md, "Security").
type httpsOnly struct{ next http.RoundTripper }

func (h httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errNotHTTPS
	}
	return h.next.RoundTrip(req)
}

package delivery

import (
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

func newClient(allowPrivate bool) *client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: webhook.Control(allowPrivate)}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    5 * time.Second,
		ResponseHeaderTimeout:  0,
		MaxResponseHeaderBytes: headerLimit,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &client{http: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

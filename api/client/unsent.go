package client

import "net/http"

// unsentError is a request the HTTP client refused before it looked for a
// connection: an unsupported scheme, a URL without a host, a header or
// method it cannot send, a proxy setting it cannot use. Nothing reached
// the network, so a write was not applied, and sending the request again
// fails the same way: neither the transport nor Retryable repeats it.
type unsentError struct{ err error }

func (e *unsentError) Error() string {
	return e.err.Error() + " (not sent: sending it again fails the same way)"
}

func (e *unsentError) Unwrap() error { return e.err }

// reportsSending says whether c's transport reports looking for a
// connection through httptrace's GetConn, as net/http's *http.Transport
// does for every request it goes on to send. Another RoundTripper may
// not, and then a failure it returns is taken as one that may heal.
func reportsSending(c *http.Client) bool {
	switch c.Transport.(type) {
	case nil, *http.Transport:
		return true
	}
	return false
}

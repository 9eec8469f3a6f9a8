package client

import "net/url"

// unsentError is the failure of a request to a URL no HTTP transport sends
// to: a scheme other than http and https, or no host. net/http refuses
// such a request before it looks for a connection (unsupported protocol
// scheme, no Host in request URL), so nothing reached the network and a
// write was not applied, and sending it again fails the same way: neither
// the transport nor Retryable repeats it, and a write's error names no key.
//
// The rule reads the request's own URL, not what the HTTP client did with
// it: whether a request reached the network cannot be read back from the
// client (net/http's HTTP/2 path sends some requests without the httptrace
// events, docs/changelog.md, 2.17.2), and a failure of any other request,
// however it looks, may have come after the request was sent. A redirect
// to such a URL fails after the first request went out, and is not this
// error.
type unsentError struct{ err error }

func (e *unsentError) Error() string {
	return e.err.Error() + " (not sent: sending it again fails the same way)"
}

func (e *unsentError) Unwrap() error { return e.err }

// unsendableURL reports whether u is a URL no HTTP transport sends to.
func unsendableURL(u *url.URL) bool {
	return u == nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == ""
}

package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// API is the v2 client: the generated ClientWithResponses (typed responses:
// JSON200, JSON201, …) with the SDK's transport, and Raw, the generated
// plain client over the same transport (for All and for callers that want
// the *http.Response).
type API struct {
	*ClientWithResponses
	Raw *Client
}

// Option adjusts New.
type Option func(*Transport)

// HTTPClient sends requests through c (timeouts, proxies, test hooks).
func HTTPClient(c *http.Client) Option { return func(t *Transport) { t.HTTP = c } }

// RetryPolicy sets the retry policy. A zero field takes DefaultRetry's, so
// a policy names only what it changes: a zero MaxDelay left a Retry-After of
// any length to be waited out, a zero BaseDelay repeated at once, and (until
// 2.11.3) a zero MaxRetries turned retries off, also the replay of a write
// whose answer was lost, for a caller who only meant to shorten MaxDelay. A
// negative MaxRetries turns retries off; so does NoRetries.
func RetryPolicy(r Retry) Option {
	if r.MaxRetries == 0 {
		r.MaxRetries = DefaultRetry.MaxRetries
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = DefaultRetry.BaseDelay
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = DefaultRetry.MaxDelay
	}
	if r.InUseFor == 0 {
		r.InUseFor = DefaultRetry.InUseFor // a negative one turns the in-use repeats off
	}
	return func(t *Transport) { t.Retry = r }
}

// NoRetries sends every request once: a 429, a 503 or an answer that never
// came is returned to the caller (a lost write's as *LostAnswerError, with
// the Idempotency-Key to repeat it with).
func NoRetries() Option { return RetryPolicy(Retry{MaxRetries: -1}) }

// NoAutoIdempotencyKey stops adding an Idempotency-Key to writes that have
// none; such writes are then retried only on 429 and 408 (not processed),
// not on 503, 502 or 504 nor after a lost answer, which comes back as a
// *LostAnswerError without a key.
func NoAutoIdempotencyKey() Option { return func(t *Transport) { t.AutoIdempo = false } }

// UserAgent sets the User-Agent header.
func UserAgent(ua string) Option { return func(t *Transport) { t.UserAgent = ua } }

// NewTransport builds the SDK transport for key with opts applied; the v1
// package uses it too.
func NewTransport(key string, opts ...Option) *Transport {
	t := &Transport{Key: key, HTTP: &http.Client{Timeout: 60 * time.Second}, Retry: DefaultRetry,
		AutoIdempo: true, UserAgent: "eventapi-go-sdk"}
	for _, o := range opts {
		o(t)
	}
	return t
}

// New returns a v2 client for baseURL (the v2 root, for example
// http://localhost:8080/api/v2) authenticating with key. A baseURL that
// CheckBaseURL refuses is an error.
func New(baseURL, key string, opts ...Option) (*API, error) {
	base, err := CheckBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	t := NewTransport(key, opts...)
	raw, err := NewClient(base, WithHTTPClient(t))
	if err != nil {
		return nil, err
	}
	return &API{ClientWithResponses: &ClientWithResponses{ClientInterface: raw}, Raw: raw}, nil
}

// CheckBaseURL checks a base URL for New (and v1.New) and returns it ending
// in one slash. It must parse, have the scheme http or https, a host name
// and a port from 1 to 65535 if any, no query or fragment, and no white
// space around it: a URL read from a file or a secret
// with its trailing newline is refused, not trimmed. Left to the calls,
// such a URL failed every request in the request builder, with an error
// Retryable took for a lost answer, so a restart loop went on forever.
func CheckBaseURL(baseURL string) (string, error) {
	if strings.TrimSpace(baseURL) != baseURL {
		return "", fmt.Errorf("eventapi: base URL %q: white space around it", baseURL)
	}
	u, err := url.Parse(baseURL)
	switch {
	case err != nil:
		return "", fmt.Errorf("eventapi: base URL %q: %w", baseURL, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("eventapi: base URL %q: the scheme must be http or https", baseURL)
	case u.Hostname() == "":
		return "", fmt.Errorf("eventapi: base URL %q: no host", baseURL)
	case u.Port() != "" && !validPort(u.Port()):
		return "", fmt.Errorf("eventapi: base URL %q: the port must be from 1 to 65535", baseURL)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(baseURL, "#"):
		// The generated calls resolve their paths against the base URL, so
		// a query or fragment would drop its last segment (/api/v2?x=1
		// sent every call to /api/…).
		return "", fmt.Errorf("eventapi: base URL %q: no query or fragment", baseURL)
	}
	return strings.TrimSuffix(baseURL, "/") + "/", nil
}

// validPort reports whether a URL's port is a number from 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

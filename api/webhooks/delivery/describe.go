package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/eventapi/eventapi/platform/webhook"
)

// describe words a failed request for the deliveries list: our own words,
// never the raw error (which can name internal addresses). A host that
// does not resolve and one that resolves to an address that is not public
// are worded alike, in registration's words (webhook.UnresolvedOrPrivate):
// told apart, a customer who re-points its endpoint's name (a CNAME to
// redis.<namespace>.svc.cluster.local, say) learns which names the
// deployment's resolver knows (docs/webhooks.md, "Security").
func describe(err error, timeout time.Duration) string {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invalid x509.CertificateInvalidError
		recErr  tls.RecordHeaderError
		netErr  net.Error
		opErr   *net.OpError
	)
	switch {
	case errors.Is(err, webhook.ErrAddressNotAllowed), errors.As(err, &dnsErr):
		return unresolvedOrPrivate
	case errors.Is(err, errNotHTTPS):
		return "refused: the endpoint URL is not https"
	case errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout():
		return fmt.Sprintf("could not connect within %v", connectTimeout)
	case errors.As(err, &netErr) && netErr.Timeout() && strings.Contains(inner(err).Error(), "TLS handshake timeout"):
		// net/http's handshake timeout has no exported type (its text is
		// read without the URL, which the endpoint's owner chose).
		return fmt.Sprintf("no TLS handshake within %v", connectTimeout)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("no response within %v", timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset by the endpoint"
	case errors.As(err, &unknown):
		return "the endpoint's TLS certificate is not signed by a trusted authority"
	case errors.As(err, &hostErr):
		return "the endpoint's TLS certificate does not name its host"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "the endpoint's TLS certificate is expired or not yet valid"
	case errors.As(err, &certErr), errors.As(err, &invalid):
		return "the endpoint's TLS certificate could not be verified"
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &recErr):
		// net/http reports a plain-HTTP answer to a TLS hello as
		// ErrSchemeMismatch, not as the RecordHeaderError it read.
		return "TLS handshake failed (is the endpoint serving https?)"
	case strings.Contains(err.Error(), "server response headers exceeded"):
		// net/http's error past MaxResponseHeaderBytes has no type.
		return fmt.Sprintf("the endpoint's response headers exceeded %d KiB", headerLimit>>10)
	}
	return "the request failed before a response arrived"
}

// refused reports whether err is a refusal made before any request left: a
// URL that is not https, or a host that does not resolve or resolves to an
// address that is not public (docs/webhooks.md, "Security"). The
// attempt-duration histogram leaves such an attempt out; the deliveries
// list keeps its measured duration, which the last two share (a lookup),
// so that it does not tell them apart either (describe).
func refused(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, errNotHTTPS) || errors.Is(err, webhook.ErrAddressNotAllowed) || errors.As(err, &dnsErr)
}

// inner is err without its *url.Error, whose text holds the URL.
func inner(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// unresolvedOrPrivate is the deliveries list's text for a host that did not
// resolve or resolved to an address that is not public.
const unresolvedOrPrivate = "refused: the endpoint's " + webhook.UnresolvedOrPrivate

// describeStatus words a non-2xx answer.
func describeStatus(code int) string {
	if code == http.StatusGone {
		return "the endpoint answered HTTP 410 Gone: it asked for no more messages and is disabled"
	}
	return fmt.Sprintf("the endpoint answered HTTP %d (2xx is required)", code)
}

// maxRetryAfter bounds the wait a receiver's Retry-After may ask for.
const maxRetryAfter = time.Hour

// retryAfter is the wait a non-2xx answer's Retry-After header asks for
// (delay-seconds or an HTTP date, RFC 9110 10.2.3), at most maxRetryAfter;
// 0 when it asks for none or cannot be read.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseUint(h, 10, 32); err == nil {
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(h); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

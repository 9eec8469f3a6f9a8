package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// APIError is an answer of 400 or more, decoded from the error envelope: v2's
// {"error": {code, message, details, request_id}} or v1's {"error": {code,
// message}} (whose request id comes from the X-Request-Id header).
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the machine-readable error code (for example
	// "duplicate_record", "overbook_blocked", or v1's "BAD_REQUEST"); route
	// on it, never on Message.
	Code string
	// Message is the human text. An answer that is not the error envelope
	// (a gateway's HTML page) gives its first 200 bytes here, white space
	// collapsed, and its whole body in Body.
	Message string
	// Details is the envelope's structured detail, raw (null when absent);
	// DecodeDetails unmarshals it.
	Details json.RawMessage
	// RequestID identifies the request in the server's logs.
	RequestID string
	// RetryAfter is the Retry-After header's delay, zero when absent.
	RetryAfter time.Duration
	// IdempotencyKey is the key a write (POST, PATCH, DELETE) was sent
	// with, the transport's own when the call set none; empty for reads
	// and for v1 writes (v1 takes no key).
	// To repeat a write that got a 409 idempotency_key_in_use or a 429 the
	// transport would not wait out, send it with this key
	// (params.IdempotencyKey): a new call gets a new key.
	IdempotencyKey string
	// Method is the request's HTTP method (since 2.17.1): Retryable tells
	// a read from a write sent without a key by it.
	Method string
	// Replayed is true when the answer is the stored answer of an earlier
	// request with the same Idempotency-Key (the Idempotent-Replayed
	// header): a refusal such as overbook_blocked is replayed with its
	// figures of then for 24 hours, and a write sent again after the
	// situation changed (or with retry_with's body) needs a new key.
	Replayed bool
	// Body is the answer's body as it came, up to 1 MiB.
	Body []byte
	// absolute: a v1 PATCH (Transport.V1), safe to send again as it was.
	absolute bool
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("eventapi: %d", e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// DecodeDetails unmarshals Details into v (for example *OverbookDetails when
// Code is "overbook_blocked").
func (e *APIError) DecodeDetails(v any) error {
	if len(e.Details) == 0 || string(e.Details) == "null" {
		return fmt.Errorf("eventapi: error %s has no details", e.Code)
	}
	return json.Unmarshal(e.Details, v)
}

// CodeOf returns the code of err when it is (or wraps) an *APIError, else "".
func CodeOf(err error) string {
	var e *APIError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Retryable says whether a call that failed with err may be sent again,
// and how long to wait first, by the rule the transport retries by
// (docs/sdk.md, "Restarting the feed"). A write must go again with the key
// it was sent with, IdempotencyKeyOf(err), as params.IdempotencyKey: a new
// call gets a fresh key, and the server would apply it a second time.
//
//   - Yes: a 429, a 408 or a 409 idempotency_key_in_use (nothing was
//     executed, or the first attempt still runs), after RetryAfter; a 503,
//     502 or 504 of a read, of a write sent with a key or of a v1 PATCH
//     (absolute values); an answer that never came or was cut off, of a
//     read, of a write sent with a key (a *LostAnswerError naming it) or
//     of a v1 PATCH. The wait is at least a second.
//   - No: the caller's cancellation (context.Canceled; a deadline, the
//     caller's or the http.Client's Timeout, is an answer that never came,
//     and retryable as such); a write sent without a key whose
//     outcome is unknown (a 503, 502 or 504, a lost answer), which may have
//     been applied: read it back; a certificate the client refuses; a
//     request the HTTP client would not send (an unsupported scheme, a URL
//     without a host: it fails the same way every time); a URL that does
//     not parse (a *url.Error with Op "parse"), and any other *url.Error
//     of a write (the transport gives a write that may have been sent as a
//     *LostAnswerError); every
//     other answer, which the same request would get again (a change
//     feed's 422 on its cursor or 403 on its type filter; 410
//     cursor_expired needs a new start).
//
// The transport already retries these within its Retry policy; Retryable
// is for the caller whose loop outlives it, such as a Feed restarted from
// its cursor. Such a loop must end on its own context: once the context's
// deadline has passed, each call fails with a deadline error that
// Retryable cannot tell from the http.Client's per-attempt Timeout.
func Retryable(err error) (wait time.Duration, ok bool) {
	// A deadline is not told apart: the http.Client's per-attempt Timeout
	// (an answer that never came, retryable) wraps DeadlineExceeded as the
	// caller's own deadline does, and a call made again under a context
	// that has ended fails at once.
	if err == nil || errors.Is(err, context.Canceled) {
		return 0, false
	}
	if _, is := errors.AsType[*unsentError](err); is {
		return 0, false
	}
	if e, is := errors.AsType[*APIError](err); is {
		safe := safeMethod(e.Method) || e.IdempotencyKey != "" || e.absolute
		if notProcessed(e.Status, e.Code) || safe && unavailable(e.Status) {
			return max(e.RetryAfter, time.Second), true
		}
		return 0, false
	}
	if e, is := errors.AsType[*LostAnswerError](err); is {
		if e.IdempotencyKey == "" && !e.absolute {
			return 0, false
		}
		return time.Second, true
	}
	if refusedCertificate(err) {
		return 0, false
	}
	// A read whose answer never came. The transport gives a write's as a
	// *LostAnswerError (above), so a write's bare *url.Error was never
	// sent; nor was a request whose URL did not parse (Op "parse": a base
	// URL New did not check), which fails the same way every time.
	if e, is := errors.AsType[*url.Error](err); is && readOp(e.Op) {
		return time.Second, true
	}
	return 0, false
}

// readOp reports whether the Op of a *url.Error names a read: net/http
// writes the method as "Get", the transport as "GET".
func readOp(op string) bool { return safeMethod(strings.ToUpper(op)) }

// refusedCertificate reports whether err is the client's refusal of the
// server's certificate: no wait mends it.
func refusedCertificate(err error) bool {
	_, verify := errors.AsType[*tls.CertificateVerificationError](err)
	_, unknown := errors.AsType[x509.UnknownAuthorityError](err)
	_, host := errors.AsType[x509.HostnameError](err)
	_, invalid := errors.AsType[x509.CertificateInvalidError](err)
	return verify || unknown || host || invalid
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// maxErrorMessage bounds the Message taken from an error answer that is not
// the envelope.
const maxErrorMessage = 200

// decodeError reads res (status 400 or more) into an *APIError and closes its
// body.
func decodeError(res *http.Response) *APIError {
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	e := &APIError{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id"),
		RetryAfter: retryAfter(res.Header, time.Now()), Replayed: res.Header.Get("Idempotent-Replayed") == "true"}
	var env struct {
		Error struct {
			Code      string          `json:"code"`
			Message   string          `json:"message"`
			Details   json.RawMessage `json:"details"`
			RequestID string          `json:"request_id"`
		} `json:"error"`
	}
	e.Body = body
	if json.Unmarshal(body, &env) != nil || env.Error.Code == "" {
		// A gateway's page: its start, on one line, so that the error's
		// text stays a log line (the whole page is in Body).
		e.Message = strings.Join(strings.Fields(string(body)), " ")
		if len(e.Message) > maxErrorMessage {
			cut := maxErrorMessage
			for cut > 0 && !utf8.RuneStart(e.Message[cut]) {
				cut--
			}
			e.Message = fmt.Sprintf("%s… (%d bytes)", e.Message[:cut], len(body))
		}
		if e.Message == "" {
			e.Message = http.StatusText(res.StatusCode)
		}
		return e
	}
	e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
	if env.Error.RequestID != "" {
		e.RequestID = env.Error.RequestID
	}
	return e
}

// retryAfter parses Retry-After (delay-seconds, digits only, or an HTTP
// date, RFC 9110 10.2.3); zero when absent or unparseable. A number of
// seconds too large for a time.Duration is the longest Duration, so that a
// Retry gives up on it as on any wait above its MaxDelay (it once overflowed
// into a negative wait, which was retried at once).
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || s > uint64(math.MaxInt64/int64(time.Second)) {
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

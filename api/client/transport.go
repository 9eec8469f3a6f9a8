package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Retry is the policy for the attempts that may be repeated: a 429 or a 408
// (the request was not processed), a 409 idempotency_key_in_use, and a
// 502, 503, 504 or an answer that never came (a timeout, a refused or reset
// connection; a gateway's 502 and 504 while a pod drains) when repeating
// is safe: a read, or a write with an Idempotency-Key, which the server
// replays rather than applies twice. Up to MaxRetries further attempts, waiting Retry-After
// when the server sends it, else an exponential backoff from BaseDelay with
// full jitter, at most MaxDelay. A Retry-After longer than MaxDelay, or
// than the request's context has left, is not waited out: the answer is
// returned with its RetryAfter, for the caller to decide.
//
// A success answer to a request that is safe to repeat, and to any write,
// is read whole before Do returns (up to maxBuffered; a longer one is
// handed on as a stream), so that an answer cut off mid-body counts as
// lost: it is sent again, with the same Idempotency-Key, when that is
// safe, and a write's is otherwise a *LostAnswerError.
//
// A 409 idempotency_key_in_use is repeated for InUseFor from the first
// attempt whatever MaxRetries says, unless retries are off (a negative
// MaxRetries) or InUseFor is negative: the first attempt
// may still run, or may have died with its process, and the server keeps
// the key of an attempt that died in use until PostgreSQL has rolled that
// attempt back (at once after a process crash, longer when its host
// vanished; docs/edge.md, "Crash-safe design"). Counted against
// MaxRetries, the default's four retries gave up after about 5 s, and the
// caller was left with a write it could neither see done nor safely send
// again with a new key.
type Retry struct {
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	InUseFor   time.Duration
}

// DefaultRetry is the policy New uses unless told otherwise. Its MaxDelay
// is the server's rate window (60 s, sliding, so a 429 after a burst may
// carry a Retry-After of up to 60) and a second: the default waits out
// every 429, within the request's context. Its InUseFor outlasts the
// server's in-progress marker (30 s) with a margin.
var DefaultRetry = Retry{MaxRetries: 4, BaseDelay: 250 * time.Millisecond, MaxDelay: 61 * time.Second, InUseFor: 40 * time.Second}

// maxBuffered bounds the success answer the transport reads whole to
// repeat a request whose answer is cut off; the API's largest answers
// (manifests) are about 1 MB. A variable for the tests.
var maxBuffered int64 = 64 << 20

// Transport is the SDK's HTTP stack, an HttpRequestDoer for the generated
// clients (v2 and v1): it authenticates, adds Idempotency-Key to writes,
// repeats what Retry allows, and returns answers of 400 or more as
// *APIError.
type Transport struct {
	Key        string
	HTTP       *http.Client
	Retry      Retry
	UserAgent  string
	AutoIdempo bool
	// V1 marks the transport of the v1 surface (v1.New sets it, and turns
	// AutoIdempo off): the v1 server takes no Idempotency-Key, and its one
	// write, PATCH, sets absolute values, so sending it again applies the
	// same values. A v1 PATCH is therefore repeated as a keyed write is
	// (after a 503, a gateway's 502 or 504, or a lost answer), and its
	// errors name no key: a *LostAnswerError says it may be sent again as
	// it is, and Retryable says yes to it.
	V1 bool
}

// Do sends req. A 2xx or 3xx answer is returned, its body read into memory
// first when the request is safe to repeat or a write (see Retry); 400 or more is
// returned as an *APIError (with a nil response). A 2xx or 3xx answer's
// declared headers that the generated parser could not bind are moved to
// UnboundHeaderPrefix and their name. When Do gives up on a write whose
// answer never came, was cut off, or whose JSON answer is not JSON, its
// error is a *LostAnswerError naming the Idempotency-Key the write was
// sent with.
func (t *Transport) Do(req *http.Request) (*http.Response, error) {
	if t.Key != "" {
		req.Header.Set("Authorization", "Bearer "+t.Key)
	}
	// A User-Agent a request editor set wins over the transport's.
	if t.UserAgent != "" && req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", t.UserAgent)
	}
	// One key for every attempt: a retried write is replayed, not repeated.
	if t.AutoIdempo && !t.V1 && (req.Method == http.MethodPost || req.Method == http.MethodPatch || req.Method == http.MethodDelete) &&
		req.Header.Get("Idempotency-Key") == "" {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	httpc := t.HTTP
	if httpc == nil {
		httpc = http.DefaultClient
	}
	// A body read from a stream (no GetBody: not a bytes or strings reader)
	// can be sent only once, so such a request is never repeated: its
	// answer, a 429 with its Retry-After included, comes back at once.
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	// Repeating is safe for a read, for a write with a key: the server
	// replays its first answer (or says it is still in progress), and for a
	// v1 PATCH, which sets absolute values.
	repeatable := replayable && (safeMethod(req.Method) || t.absolute(req) || t.writeKey(req) != "")
	ctx := req.Context()
	// A URL no HTTP transport can send to fails the same way every time
	// (unsent.go).
	unsendable := unsendableURL(req.URL)
	first := time.Now()
	// retries counts the repeats MaxRetries bounds: every one but those of
	// a 409 idempotency_key_in_use within InUseFor.
	retries := 0
	for attempt := 0; ; attempt++ {
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		res, err := httpc.Do(req)
		if err != nil && unsendable {
			return nil, &unsentError{err: err}
		}
		if err == nil && res.StatusCode < 400 {
			// A declared header a gateway rewrote into a value the
			// generated parser cannot bind is moved aside (headers.go):
			// the parser would fail the whole call, a committed write's
			// too, with an error that names no key.
			setAside(res.Header)
			if !repeatable && safeMethod(req.Method) {
				return res, nil
			}
			// Read the answer whole: one cut off mid-body is lost like
			// one that never came, and the request is sent again when
			// that is safe. A write's answer is read whole even when it
			// is not repeated (a stream body, no key), so that its cut
			// off is a *LostAnswerError too, with the key it was sent
			// with, and not the generated parser's bare unexpected EOF.
			var body []byte
			if body, err = buffer(res); err == nil {
				if !safeMethod(req.Method) && !parsable(res, body) {
					// The write may have been applied; the parser would
					// fail with an error that names no key to repeat it
					// with. Repeating it here would get the same answer.
					return nil, t.lost(req, fmt.Errorf(
						"eventapi: %s %s: the %d answer is not the JSON its Content-Type says, and the write may have been applied",
						req.Method, req.URL.Redacted(), res.StatusCode))
				}
				return res, nil
			}
			// A *url.Error as the client's own, so that Retryable takes a
			// read's cut-off answer as one that never came.
			err = &url.Error{Op: req.Method, URL: req.URL.Redacted(), Err: fmt.Errorf("eventapi: reading the answer: %w", err)}
		}
		if err != nil {
			// No answer: the write may or may not have been applied. Only
			// a repeatable request is sent again; the caller's own
			// cancellation or deadline ends it, and the error says so.
			if !repeatable || retries >= t.Retry.MaxRetries {
				return nil, t.lost(req, err)
			}
			if werr := t.Retry.wait(ctx, retries, 0); werr != nil {
				if errors.Is(err, werr) {
					return nil, t.lost(req, err)
				}
				return nil, t.lost(req, fmt.Errorf("%w (while waiting to retry: %w)", err, werr))
			}
			retries++
			continue
		}
		apiErr := decodeError(res)
		apiErr.IdempotencyKey, apiErr.Method, apiErr.absolute = t.writeKey(req), req.Method, t.absolute(req)
		retryable := replayable && notProcessed(res.StatusCode, apiErr.Code) || repeatable && unavailable(res.StatusCode)
		inUse := t.Retry.MaxRetries > 0 && apiErr.Code == codeInUse && time.Since(first) < t.Retry.InUseFor
		if !retryable || !inUse && retries >= t.Retry.MaxRetries || !t.Retry.waits(ctx, apiErr.RetryAfter) {
			return nil, apiErr
		}
		// The backoff grows with the repeats counted, not with the in-use
		// ones, which wait Retry-After.
		if err := t.Retry.wait(ctx, retries, apiErr.RetryAfter); err != nil {
			return nil, fmt.Errorf("%w (while waiting to retry: %w)", apiErr, err)
		}
		if !inUse {
			retries++
		}
	}
}

// notProcessed reports whether an answer says the request was not
// processed, so that sending it again is safe whatever it is: 429 and 408
// (the server refused it, or its headers or body did not arrive), and
// 409 idempotency_key_in_use (the first attempt still runs).
func notProcessed(status int, code string) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
		status == http.StatusConflict && code == codeInUse
}

// codeInUse is the code of the 409 a keyed write meets while an earlier
// attempt with its key holds it.
const codeInUse = "idempotency_key_in_use"

// unavailable reports whether an answer leaves the request's outcome
// unknown or says the service could not take it now: 503, and a gateway's
// 502 and 504 (a pod draining behind it). Sent again only when safe.
func unavailable(status int) bool {
	return status == http.StatusServiceUnavailable || status == http.StatusBadGateway || status == http.StatusGatewayTimeout
}

// waits reports whether the policy waits out a Retry-After of after
// within ctx: not when it is longer than MaxDelay, nor past ctx's
// deadline (a retry sooner than the server asked would be refused again).
func (r Retry) waits(ctx context.Context, after time.Duration) bool {
	if r.MaxDelay > 0 && after > r.MaxDelay {
		return false
	}
	if dl, ok := ctx.Deadline(); ok && after > 0 && time.Until(dl) < after {
		return false
	}
	return true
}

// wait sleeps before retry number attempt+1 (delay), or until ctx ends.
func (r Retry) wait(ctx context.Context, attempt int, after time.Duration) error {
	t := time.NewTimer(r.delay(attempt, after))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// delay is the wait before retry number attempt+1: Retry-After when given,
// else full-jitter exponential backoff; at most MaxDelay.
func (r Retry) delay(attempt int, after time.Duration) time.Duration {
	d := after
	if d <= 0 {
		backoff := r.BaseDelay << min(attempt, 20)
		if r.MaxDelay > 0 && backoff > r.MaxDelay {
			backoff = r.MaxDelay
		}
		if backoff > 0 {
			d = rand.N(backoff) + 1
		}
	}
	if r.MaxDelay > 0 && d > r.MaxDelay {
		d = r.MaxDelay
	}
	return d
}

// buffer reads res's body into memory, closes the connection's body and
// returns the body read; a body longer than maxBuffered is left a stream
// (what was read of it first), and buffer returns nil. The error is the
// read's: the answer was cut off.
func buffer(res *http.Response) ([]byte, error) {
	if res.ContentLength > maxBuffered {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBuffered+1))
	if err != nil {
		_ = res.Body.Close()
		return nil, err
	}
	if int64(len(body)) > maxBuffered {
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), res.Body), res.Body}
		return nil, nil
	}
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	return body, nil
}

// parsable reports whether the generated parser can read the buffered body
// of res (nil: left a stream, not checked): an answer whose Content-Type
// names JSON is decoded, and fails unless it is JSON; a 204 has no body.
func parsable(res *http.Response, body []byte) bool {
	if body == nil || res.StatusCode == http.StatusNoContent ||
		!strings.Contains(res.Header.Get("Content-Type"), "json") {
		return true
	}
	return json.Valid(body)
}

// LostAnswerError is the transport's error when it gives up on a write whose
// answer never came, was cut off mid-body, or cannot be read (a success
// answer that is not the JSON its Content-Type says): the write may have
// been applied, and only a retry with IdempotencyKey, the key it was sent
// with, is replayed rather than applied again (a call without
// params.IdempotencyKey gets a fresh key).
// IdempotencyKeyOf reads the key from it and from an *APIError alike. A
// write sent without a key (NoAutoIdempotencyKey) has an empty
// IdempotencyKey: whether it was applied can only be read back. A v1
// write's is empty too: v1 takes no key, and its PATCH sets absolute
// values, so sending it again as it was applies the same values (the
// error says so, and Retryable says yes to it).
type LostAnswerError struct {
	Err            error
	IdempotencyKey string
	// absolute: a v1 PATCH (Transport.V1), safe to send again as it was.
	absolute bool
}

func (e *LostAnswerError) Error() string {
	switch {
	case e.absolute:
		return fmt.Sprintf("%v (v1 takes no Idempotency-Key: the write may have been applied, and a v1 PATCH sets absolute values, so sending it again applies the same values)", e.Err)
	case e.IdempotencyKey == "":
		return fmt.Sprintf("%v (sent without an Idempotency-Key: the write may have been applied; read it back before sending it again)", e.Err)
	}
	return fmt.Sprintf("%v (Idempotency-Key %q: repeat the write with this key)", e.Err, e.IdempotencyKey)
}

func (e *LostAnswerError) Unwrap() error { return e.Err }

// IdempotencyKeyOf returns the Idempotency-Key a failed write was sent with,
// to repeat it with: from an *APIError or a *LostAnswerError (or an error
// wrapping one); "" for a read, a v1 write or any other error.
func IdempotencyKeyOf(err error) string {
	if e, ok := errors.AsType[*LostAnswerError](err); ok {
		return e.IdempotencyKey
	}
	if e, ok := errors.AsType[*APIError](err); ok {
		return e.IdempotencyKey
	}
	return ""
}

// lost is err as a *LostAnswerError naming the Idempotency-Key of req
// (none for a write sent without one, nor for a v1 write) when req is a
// write, else err.
func (t *Transport) lost(req *http.Request, err error) error {
	if safeMethod(req.Method) {
		return err
	}
	return &LostAnswerError{Err: err, IdempotencyKey: t.writeKey(req), absolute: t.absolute(req)}
}

// writeKey is the Idempotency-Key of req when it is a write, else "" (and
// "" on v1, which takes no key: one a request editor added protects
// nothing there).
func (t *Transport) writeKey(req *http.Request) string {
	if safeMethod(req.Method) || t.V1 {
		return ""
	}
	return req.Header.Get("Idempotency-Key")
}

// absolute reports whether req is a v1 PATCH, whose absolute values make
// sending it again safe without a key.
func (t *Transport) absolute(req *http.Request) bool {
	return t.V1 && req.Method == http.MethodPatch
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// drain is used by callers that discard a 2xx body.
func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
}

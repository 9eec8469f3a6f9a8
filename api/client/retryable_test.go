package client

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	lostRead := &url.Error{Op: "Get", URL: "http://x/changes", Err: errors.New("connection reset")}
	for _, tt := range []struct {
		name string
		err  error
		wait time.Duration
		ok   bool
	}{
		{"nil", nil, 0, false},
		{"429 with its Retry-After", &APIError{Status: 429, Code: "rate_limited", Method: "GET", RetryAfter: 60 * time.Second}, 60 * time.Second, true},
		{"429 of an unkeyed write: not executed", &APIError{Status: 429, Method: "POST"}, time.Second, true},
		{"408", &APIError{Status: 408, Code: "request_timeout", Method: "POST"}, time.Second, true},
		{"409 in use, with the key", &APIError{Status: 409, Code: "idempotency_key_in_use", Method: "POST", IdempotencyKey: "k", RetryAfter: time.Second}, time.Second, true},
		{"409 duplicate_record", &APIError{Status: 409, Code: "duplicate_record", Method: "POST", IdempotencyKey: "k"}, 0, false},
		{"503 of a read, no Retry-After", &APIError{Status: 503, Code: "service_unavailable", Method: "GET"}, time.Second, true},
		{"a gateway's 502 to a keyed write", &APIError{Status: 502, Method: "PATCH", IdempotencyKey: "k"}, time.Second, true},
		{"503 of an unkeyed write: may have been applied", &APIError{Status: 503, Method: "POST"}, 0, false},
		{"504 of an unkeyed DELETE", &APIError{Status: 504, Method: "DELETE"}, 0, false},
		{"a bad cursor", &APIError{Status: 422, Code: "validation_error", Method: "GET"}, 0, false},
		{"an expired cursor", &APIError{Status: 410, Code: "cursor_expired", Method: "GET"}, 0, false},
		{"a type filter out of scope", &APIError{Status: 403, Code: "insufficient_scope", Method: "GET"}, 0, false},
		{"a 500", &APIError{Status: 500, Code: "internal_error", Method: "GET"}, 0, false},
		{"wrapped 429", fmt.Errorf("feed: %w", &APIError{Status: 429, RetryAfter: 2 * time.Second}), 2 * time.Second, true},
		{"a keyed write's lost answer", &LostAnswerError{Err: lostRead, IdempotencyKey: "k"}, time.Second, true},
		{"an unkeyed write's lost answer", &LostAnswerError{Err: lostRead}, 0, false},
		{"a read's lost answer", lostRead, time.Second, true},
		{"the caller's cancellation", fmt.Errorf("%w (while waiting to retry: %w)", lostRead, context.Canceled), 0, false},
		{"a keyed write cancelled", &LostAnswerError{Err: &url.Error{Op: "Post", URL: "u", Err: context.Canceled}, IdempotencyKey: "k"}, 0, false},
		{"a read past the http.Client's Timeout", &url.Error{Op: "Get", URL: "u", Err: context.DeadlineExceeded}, time.Second, true},
		{"a keyed write past it", &LostAnswerError{Err: &url.Error{Op: "Post", URL: "u", Err: context.DeadlineExceeded}, IdempotencyKey: "k"}, time.Second, true},
		{"a refused certificate", &url.Error{Op: "Get", URL: "u", Err: x509.UnknownAuthorityError{}}, 0, false},
		{"another error", errors.New("decoding: unexpected EOF"), 0, false},
		{"a URL that does not parse", &url.Error{Op: "parse", URL: "http://x/api/v2\n/changes", Err: errors.New("net/url: invalid control character in URL")}, 0, false},
		{"a write's bare transport error: never sent", &url.Error{Op: "Post", URL: "u", Err: errors.New("connection reset")}, 0, false},
		{"the transport's own of a write", &url.Error{Op: "PATCH", URL: "u", Err: errors.New("reading the answer: unexpected EOF")}, 0, false},
		{"the transport's own of a read", &url.Error{Op: "GET", URL: "u", Err: errors.New("reading the answer: unexpected EOF")}, time.Second, true},
		{"a HEAD's lost answer", &url.Error{Op: "Head", URL: "u", Err: errors.New("EOF")}, time.Second, true},
		{"a v1 PATCH's lost answer", &LostAnswerError{Err: lostRead, absolute: true}, time.Second, true},
		{"a v1 PATCH's 503", &APIError{Status: 503, Method: "PATCH", absolute: true}, time.Second, true},
		{"a v1 PATCH's 422", &APIError{Status: 422, Code: "BAD_REQUEST", Method: "PATCH", absolute: true}, 0, false},
	} {
		wait, ok := Retryable(tt.err)
		if wait != tt.wait || ok != tt.ok {
			t.Errorf("%s: Retryable = %v, %v; want %v, %v", tt.name, wait, ok, tt.wait, tt.ok)
		}
	}
}

// TestRetryableOfRealFailures sends requests that fail for real through the
// transport: a refused connection may heal, a request net/http will not
// send never does, and the transport does not repeat it either (allowed
// repeats after an hour, it would wait until the context's deadline).
func TestRetryableOfRealFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	for _, tt := range []struct {
		name, method, url string
		ok, unsent        bool
	}{
		{"a read's refused connection", http.MethodGet, "http://" + closed + "/api/v2/health", true, false},
		{"a keyed write's refused connection", http.MethodPost, "http://" + closed + "/api/v2/clients", true, false},
		{"an unsupported scheme", http.MethodGet, "ftp://" + closed + "/api/v2/health", false, true},
		{"a keyed write to an unsupported scheme", http.MethodPost, "ftp://" + closed + "/api/v2/clients", false, true},
		{"a URL without a host", http.MethodGet, "http:///api/v2/health", false, true},
	} {
		// A failure that may heal is classified by Retryable alone: the
		// transport repeating it would only wait out the context.
		repeats := 0
		if tt.unsent {
			repeats = 2
		}
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, tt.method, tt.url, http.NoBody)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Idempotency-Key", "k")
			tr := &Transport{Retry: Retry{MaxRetries: repeats, BaseDelay: time.Hour, MaxDelay: time.Hour}}
			_, err = tr.Do(req)
			if _, ok := Retryable(err); ok != tt.ok {
				t.Errorf("Retryable(%v) = %v, want %v", err, ok, tt.ok)
			}
			if _, is := errors.AsType[*unsentError](err); is != tt.unsent {
				t.Errorf("%v: unsent = %v, want %v", err, is, tt.unsent)
			}
			if tt.unsent && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "while waiting to retry")) {
				t.Errorf("the transport waited to repeat a request it cannot send: %v", err)
			}
			if tt.unsent && IdempotencyKeyOf(err) != "" {
				t.Errorf("a write never sent names its key to repeat it with: %v", err)
			}
		})
	}
}

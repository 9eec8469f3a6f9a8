package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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
		{"429 with its Retry-After", &APIError{Status: 429, Code: "rate_limited", RetryAfter: 60 * time.Second}, 60 * time.Second, true},
		{"503 without one", &APIError{Status: 503, Code: "service_unavailable"}, time.Second, true},
		{"a gateway's 502", &APIError{Status: 502}, time.Second, true},
		{"408", &APIError{Status: 408, Code: "request_timeout"}, time.Second, true},
		{"a bad cursor", &APIError{Status: 422, Code: "validation_error"}, 0, false},
		{"an expired cursor", &APIError{Status: 410, Code: "cursor_expired"}, 0, false},
		{"a type filter out of scope", &APIError{Status: 403, Code: "insufficient_scope"}, 0, false},
		{"a 500", &APIError{Status: 500, Code: "internal_error"}, 0, false},
		{"wrapped 429", fmt.Errorf("feed: %w", &APIError{Status: 429, RetryAfter: 2 * time.Second}), 2 * time.Second, true},
		{"a keyed write's lost answer", &LostAnswerError{Err: lostRead, IdempotencyKey: "k"}, time.Second, true},
		{"an unkeyed write's lost answer", &LostAnswerError{Err: lostRead}, 0, false},
		{"a read's lost answer", lostRead, time.Second, true},
		{"the caller's cancellation", fmt.Errorf("%w (while waiting to retry: %w)", lostRead, context.Canceled), 0, false},
		{"another error", errors.New("decoding: unexpected EOF"), 0, false},
	} {
		wait, ok := Retryable(tt.err)
		if wait != tt.wait || ok != tt.ok {
			t.Errorf("%s: Retryable = %v, %v; want %v, %v", tt.name, wait, ok, tt.wait, tt.ok)
		}
	}
}

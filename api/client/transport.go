package client

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// Retry is the policy for 429 answers and for 503 answers to reads and
// keyed writes: up to MaxRetries further
// attempts, waiting Retry-After when the server sends it, else an
// exponential backoff from BaseDelay with full jitter; no wait exceeds
// MaxDelay.
type Retry struct {
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
}

// DefaultRetry is the policy New uses unless told otherwise.
var DefaultRetry = Retry{MaxRetries: 4, BaseDelay: 250 * time.Millisecond, MaxDelay: 30 * time.Second}

// Transport is the SDK's HTTP stack, an HttpRequestDoer for the generated
// clients (v2 and v1): it authenticates, adds Idempotency-Key to writes,
// retries 429 and 503, and returns answers of 400 or more as *APIError.
type Transport struct {
	Key        string
	HTTP       *http.Client
	Retry      Retry
	UserAgent  string
	AutoIdempo bool
}

// Do sends req. A 2xx or 3xx answer is returned as is; 400 or more is
// returned as an *APIError (with a nil response).
func (t *Transport) Do(req *http.Request) (*http.Response, error) {
	if t.Key != "" {
		req.Header.Set("Authorization", "Bearer "+t.Key)
	}
	if t.UserAgent != "" {
		req.Header.Set("User-Agent", t.UserAgent)
	}
	// One key for every attempt: a retried write is replayed, not repeated.
	if t.AutoIdempo && (req.Method == http.MethodPost || req.Method == http.MethodPatch) &&
		req.Header.Get("Idempotency-Key") == "" {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	httpc := t.HTTP
	if httpc == nil {
		httpc = http.DefaultClient
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 && req.Body != nil {
			if req.GetBody == nil {
				return nil, fmt.Errorf("eventapi: cannot retry %s %s: the body cannot be replayed", req.Method, req.URL.Path)
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		res, err := httpc.Do(req)
		if err != nil {
			return nil, err
		}
		if res.StatusCode < 400 {
			return res, nil
		}
		apiErr := decodeError(res)
		// 429: the request was not processed. 503: retried only when
		// repeating it is safe (a read, or a write with an Idempotency-Key).
		retryable := res.StatusCode == http.StatusTooManyRequests ||
			res.StatusCode == http.StatusServiceUnavailable && (safeMethod(req.Method) || req.Header.Get("Idempotency-Key") != "")
		if !retryable || attempt >= t.Retry.MaxRetries {
			return nil, apiErr
		}
		if err := sleep(req.Context(), t.Retry.delay(attempt, apiErr.RetryAfter)); err != nil {
			return nil, apiErr
		}
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

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// drain is used by callers that discard a 2xx body.
func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
}

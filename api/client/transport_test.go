package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// script is a server that answers the i-th request with answers[i] (the
// last one repeats) and records every request it saw.
type script struct {
	mu      sync.Mutex
	answers []answer
	seen    []seenRequest
}

type answer struct {
	status  int
	headers map[string]string
	body    string
}

type seenRequest struct{ method, idempotencyKey, auth, body string }

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{r.Method, r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization"), string(body)})
	a := s.answers[min(len(s.seen), len(s.answers))-1]
	s.mu.Unlock()
	if a.status == 0 { // no answer: the connection is closed
		panic(http.ErrAbortHandler)
	}
	for k, v := range a.headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

const okBody = `{"data":{"id":"3f0c2a56-8f1e-4a57-9c36-1f1d1bb0f5a1"}}`

func TestTransport(t *testing.T) {
	fast := RetryPolicy(Retry{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	busy := answer{429, map[string]string{"Retry-After": "1"}, `{"error":{"code":"rate_limited","message":"slow down","details":null,"request_id":"r-1"}}`}
	down := answer{503, nil, `{"error":{"code":"service_unavailable","message":"idempotency store unavailable","details":null,"request_id":"r-2"}}`}
	inUse := answer{409, nil, `{"error":{"code":"idempotency_key_in_use","message":"in progress","details":null,"request_id":"r-5"}}`}
	tests := []struct {
		name         string
		method       string
		opts         []Option
		answers      []answer
		wantAttempts int
		wantStatus   int    // 0: success
		wantCode     string // the APIError's code
		wantReqID    string
	}{
		{"429 then success, Retry-After honoured", "POST", nil, []answer{busy, {201, nil, okBody}}, 2, 0, "", ""},
		{"503 on a keyed write is retried", "PATCH", []Option{fast}, []answer{down, down, {200, nil, okBody}}, 3, 0, "", ""},
		{"503 on a DELETE is retried under the transport's key", "DELETE", []Option{fast}, []answer{down, {204, nil, ""}}, 2, 0, "", ""},
		{"503 on an unkeyed write is not retried", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{down, {201, nil, okBody}}, 1, 503, "service_unavailable", "r-2"},
		{"429 on an unkeyed write is retried", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{{429, nil, busy.body}, {201, nil, okBody}}, 2, 0, "", ""},
		{"retries run out", "GET", []Option{fast}, []answer{down}, 3, 503, "service_unavailable", "r-2"},
		{"4xx is a typed error at once", "POST", []Option{fast}, []answer{{422, nil,
			`{"error":{"code":"overbook_blocked","message":"not enough stock","details":{"deficit":3},"request_id":"r-3"}}`}}, 1, 422, "overbook_blocked", "r-3"},
		{"v1 envelope takes the request id from the header", "PATCH", []Option{fast}, []answer{{400,
			map[string]string{"X-Request-Id": "r-4"}, `{"error":{"code":"BAD_REQUEST","message":"weight_lbs: must be a positive number"}}`}}, 1, 400, "BAD_REQUEST", "r-4"},
		{"a body that is not the envelope", "GET", []Option{fast}, []answer{{500, nil, "internal"}}, 1, 500, "", ""},
		// A gateway's 502 or 504 (a pod draining behind it) leaves the outcome
		// unknown, as a lost answer does: sent again only when that is safe.
		{"a gateway's 502 to a keyed write is retried", "POST", []Option{fast}, []answer{{502, nil, "<html>bad gateway</html>"}, {201, nil, okBody}}, 2, 0, "", ""},
		{"a gateway's 504 to a read is retried", "GET", []Option{fast}, []answer{{504, nil, "gateway timeout"}, {200, nil, okBody}}, 2, 0, "", ""},
		{"a 502 to an unkeyed write is not retried", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{{502, nil, "bad gateway"}, {201, nil, okBody}}, 1, 502, "", ""},
		// A 408 was not processed: sent again like a 429, even unkeyed.
		{"408 on an unkeyed write is retried", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{{408, nil,
			`{"error":{"code":"request_timeout","message":"the body did not arrive","details":null,"request_id":"r-7"}}`}, {201, nil, okBody}}, 2, 0, "", ""},
		{"no answer to a keyed write: sent again with its key", "POST", []Option{fast}, []answer{{}, {201, nil, okBody}}, 2, 0, "", ""},
		{"no answer to a read: sent again", "GET", []Option{fast}, []answer{{}, {}, {200, nil, okBody}}, 3, 0, "", ""},
		{"no answer to an unkeyed write: not sent again", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{{}, {201, nil, okBody}}, 1, -1, "", ""},
		{"409 in use: the first attempt still runs", "POST", []Option{fast}, []answer{{409, nil,
			`{"error":{"code":"idempotency_key_in_use","message":"in progress","details":null,"request_id":"r-5"}}`}, {201, nil, okBody}}, 2, 0, "", ""},
		{"409 in use past MaxRetries: repeated while a dead attempt's marker may live", "POST", []Option{fast}, []answer{inUse, inUse, inUse, inUse, inUse, {201, nil, okBody}}, 6, 0, "", ""},
		{"409 in use past InUseFor: given up after MaxRetries", "POST",
			[]Option{RetryPolicy(Retry{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, InUseFor: time.Nanosecond})},
			[]answer{inUse, inUse, inUse, inUse, {201, nil, okBody}}, 3, 409, "idempotency_key_in_use", "r-5"},
		{"409 in use, InUseFor negative: counted as any retry", "POST",
			[]Option{RetryPolicy(Retry{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, InUseFor: -1})},
			[]answer{inUse, inUse, inUse, inUse, {201, nil, okBody}}, 3, 409, "idempotency_key_in_use", "r-5"},
		{"409s in use use up no retry: the 502s after them are still repeated", "POST", []Option{fast},
			[]answer{inUse, inUse, inUse, {502, nil, "bad gateway"}, {502, nil, "bad gateway"}, {201, nil, okBody}}, 6, 0, "", ""},
		{"409 in use with retries off: given up at once", "POST", []Option{NoRetries()}, []answer{inUse, {201, nil, okBody}}, 1, 409, "idempotency_key_in_use", "r-5"},
		{"another 409 is a typed error at once", "POST", []Option{fast}, []answer{{409, nil,
			`{"error":{"code":"idempotency_key_mismatch","message":"other body","details":null,"request_id":"r-6"}}`}}, 1, 409, "idempotency_key_mismatch", "r-6"},
		{"a Retry-After past MaxDelay is not waited out", "GET", []Option{fast}, []answer{{429, map[string]string{"Retry-After": "60"}, busy.body}, {200, nil, okBody}},
			1, 429, "rate_limited", "r-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{answers: tt.answers}
			srv := httptest.NewServer(s)
			defer srv.Close()
			tr := NewTransport("svc_live_k", tt.opts...)
			req, _ := http.NewRequestWithContext(context.Background(), tt.method, srv.URL+"/x", strings.NewReader(`{"a":1}`))
			res, err := tr.Do(req)
			if len(s.seen) != tt.wantAttempts {
				t.Errorf("%d attempts, want %d", len(s.seen), tt.wantAttempts)
			}
			for _, r := range s.seen {
				if r.auth != "Bearer svc_live_k" || r.body != `{"a":1}` || r.idempotencyKey != s.seen[0].idempotencyKey {
					t.Errorf("attempt %+v differs from the first %+v (auth, body and Idempotency-Key must be the same)", r, s.seen[0])
				}
			}
			keyed := s.seen[0].idempotencyKey != ""
			wantKeyed := tt.method != "GET" && !strings.Contains(tt.name, "unkeyed")
			if keyed != wantKeyed {
				t.Errorf("Idempotency-Key sent = %v, want %v", keyed, wantKeyed)
			}
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				res.Body.Close()
				return
			}
			if tt.wantStatus < 0 {
				if _, isAPI := err.(*APIError); err == nil || isAPI {
					t.Fatalf("err = %v, want the transport's error", err)
				}
				return
			}
			e, ok := err.(*APIError)
			if !ok || e.Status != tt.wantStatus || e.Code != tt.wantCode || e.RequestID != tt.wantReqID || CodeOf(err) != tt.wantCode {
				t.Fatalf("err = %#v, want status %d code %q request %q", err, tt.wantStatus, tt.wantCode, tt.wantReqID)
			}
			if e.Code == "overbook_blocked" {
				var d OverbookDetails
				if err := e.DecodeDetails(&d); err != nil || d.Deficit != 3 {
					t.Errorf("details = %+v, %v", d, err)
				}
			}
		})
	}
}

// TestStreamedBodyIsSentOnce: a body read from a stream (http.NewRequest
// sets no GetBody for a plain io.Reader) cannot be sent twice, so its
// request is never repeated: a 429 or 503 comes back at once as the
// *APIError, Retry-After included, rather than after a wait that could not
// end in a retry.
func TestStreamedBodyIsSentOnce(t *testing.T) {
	fast := RetryPolicy(Retry{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second})
	for _, tt := range []struct {
		name   string
		first  answer
		status int // 0: no answer, the transport's error
		code   string
	}{
		{"429", answer{429, map[string]string{"Retry-After": "3"}, `{"error":{"code":"rate_limited","message":"slow down","details":null,"request_id":"r-1"}}`}, 429, "rate_limited"},
		{"503", answer{503, nil, `{"error":{"code":"service_unavailable","message":"down","details":null,"request_id":"r-2"}}`}, 503, "service_unavailable"},
		{"no answer", answer{}, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{answers: []answer{tt.first, {201, nil, okBody}}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			body := struct{ io.Reader }{strings.NewReader(`{"a":1}`)}
			req, _ := http.NewRequestWithContext(context.Background(), "POST", srv.URL+"/x", body)
			_, err := NewTransport("svc_live_k", fast).Do(req)
			if len(s.seen) != 1 {
				t.Fatalf("%d attempts, want 1", len(s.seen))
			}
			var e *APIError
			if tt.status == 0 {
				if err == nil || errors.As(err, &e) {
					t.Fatalf("err = %v, want the transport's error", err)
				}
				return
			}
			if !errors.As(err, &e) || e.Status != tt.status || e.Code != tt.code {
				t.Fatalf("err = %#v, want the %d *APIError", err, tt.status)
			}
			if tt.status == 429 && e.RetryAfter != 3*time.Second {
				t.Errorf("RetryAfter %v, want 3s", e.RetryAfter)
			}
		})
	}
}

// TestRetryWaitsNoLongerThanTheContext: a Retry-After the request's
// deadline cannot wait out is not waited for; the 429 comes back at once,
// and a wait cut short by the context says so and keeps the 429.
func TestRetryWaitsNoLongerThanTheContext(t *testing.T) {
	busy := answer{429, map[string]string{"Retry-After": "5"}, `{"error":{"code":"rate_limited","message":"slow down","details":null,"request_id":"r-1"}}`}
	s := &script{answers: []answer{busy, {200, nil, okBody}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	tr := NewTransport("svc_live_k")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/x", nil)
	if _, err := tr.Do(req); CodeOf(err) != "rate_limited" || len(s.seen) != 1 || ctx.Err() != nil {
		t.Fatalf("err = %v after %d attempts (context: %v), want the 429 at once", err, len(s.seen), ctx.Err())
	}

	s2 := &script{answers: []answer{{429, map[string]string{"Retry-After": "1"}, busy.body}, {200, nil, okBody}}}
	srv2 := httptest.NewServer(s2)
	defer srv2.Close()
	ctx2, cancel2 := context.WithCancel(context.Background())
	req2, _ := http.NewRequestWithContext(ctx2, "GET", srv2.URL+"/x", nil)
	// The caller gives up once the 429 has arrived, during the wait.
	tr2 := NewTransport("svc_live_k", HTTPClient(&http.Client{Transport: cancelAfter{cancel2}}))
	_, err := tr2.Do(req2)
	if !errors.Is(err, context.Canceled) || CodeOf(err) != "rate_limited" {
		t.Fatalf("err = %v, want the 429 and the cancellation", err)
	}
}

// TestCancelledWhileWaitingAfterALostAnswer: a caller that gives up while
// the transport waits to send again a request whose answer was lost gets
// its context's error, beside the connection's.
func TestCancelledWhileWaitingAfterALostAnswer(t *testing.T) {
	for _, method := range []string{"GET", "POST"} {
		t.Run(method, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			lost := errors.New("connection reset by peer")
			tr := NewTransport("svc_live_k",
				RetryPolicy(Retry{MaxRetries: 4, BaseDelay: time.Minute, MaxDelay: time.Minute}),
				HTTPClient(&http.Client{Transport: lostThenCancel{lost, cancel}}))
			req, _ := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:1/x", strings.NewReader(`{}`))
			_, err := tr.Do(req)
			if !errors.Is(err, context.Canceled) || !errors.Is(err, lost) {
				t.Fatalf("err = %v, want the lost answer and the cancellation", err)
			}
		})
	}
}

// lostThenCancel is a RoundTripper whose answer is always lost, and which
// calls cancel once it is: the context ends during the wait before a retry.
type lostThenCancel struct {
	err    error
	cancel context.CancelFunc
}

func (l lostThenCancel) RoundTrip(*http.Request) (*http.Response, error) {
	l.cancel()
	return nil, l.err
}

// cancelAfter is a RoundTripper that reads the answer whole, then calls
// cancel: the context ends after the answer, before any retry.
type cancelAfter struct{ cancel context.CancelFunc }

func (c cancelAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(strings.NewReader(string(body)))
	c.cancel()
	return res, err
}

func TestRetryDelay(t *testing.T) {
	r := Retry{MaxRetries: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second}
	if d := r.delay(0, 1500*time.Millisecond); d != 1500*time.Millisecond {
		t.Errorf("Retry-After 1.5 s gives %v", d)
	}
	if d := r.delay(0, time.Hour); d != 2*time.Second {
		t.Errorf("Retry-After 1 h gives %v, want the 2 s cap", d)
	}
	for attempt := range 8 {
		limit := min(100*time.Millisecond<<attempt, 2*time.Second)
		for range 50 {
			if d := r.delay(attempt, 0); d <= 0 || d > limit {
				t.Fatalf("backoff of attempt %d = %v, want in (0, %v]", attempt, d, limit)
			}
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		value string
		want  time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"-1", 0},
		{"+5", 0},
		{" 5 ", 5 * time.Second},
		{"soon", 0},
		{"10000000000", time.Duration(math.MaxInt64)},
		{"99999999999999999999999", time.Duration(math.MaxInt64)},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	} {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("Retry-After %q = %v, want %v", tt.value, got, tt.want)
		}
	}
}

func TestAPIErrorText(t *testing.T) {
	for _, c := range []struct {
		e    APIError
		want string
	}{
		{APIError{Status: 422, Code: "validation_error", Message: "request validation failed", RequestID: "r-1"},
			"eventapi: 422 validation_error: request validation failed (request r-1)"},
		{APIError{Status: 502}, "eventapi: 502"},
		{APIError{Status: 400, Code: "BAD_REQUEST", Message: "page: must be a positive integer"},
			"eventapi: 400 BAD_REQUEST: page: must be a positive integer"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

// TestAGatewayPageIsCutInTheErrorText: an error answer that is not the
// envelope (a gateway's HTML page of some kilobytes) gives its start, on
// one line, as Message, so that the error's text stays a log line; the
// whole page is in Body. A short one is kept whole.
func TestAGatewayPageIsCutInTheErrorText(t *testing.T) {
	page := "<!DOCTYPE html>\n<html>\n  <head><title>502 Bad Gateway</title></head>\n  <body>" +
		strings.Repeat("<p>The upstream server é did not answer in time.</p>\n", 100) + "</body></html>"
	for _, tt := range []struct {
		name, body, message string
	}{
		{"a long page", page, ""},
		{"a short one", "upstream connect error\n", "upstream connect error"},
		{"none", "", "Bad Gateway"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &http.Response{StatusCode: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: io.NopCloser(strings.NewReader(tt.body))}
			e := decodeError(res)
			if string(e.Body) != tt.body {
				t.Fatalf("Body has %d bytes, want the whole answer's %d", len(e.Body), len(tt.body))
			}
			text := e.Error()
			if tt.message != "" {
				if e.Message != tt.message {
					t.Fatalf("Message = %q, want %q", e.Message, tt.message)
				}
				return
			}
			if len(text) > 300 || strings.Contains(text, "\n") || !utf8.ValidString(text) ||
				!strings.HasPrefix(e.Message, "<!DOCTYPE html> <html> <head><title>502 Bad Gateway</title>") ||
				!strings.HasSuffix(text, fmt.Sprintf("… (%d bytes)", len(page))) {
				t.Fatalf("Error() = %q (%d bytes), want the page's start on one line and its length", text, len(text))
			}
		})
	}
}

// TestRetryPolicyFillsZeroFields: a policy that leaves a field at zero
// takes DefaultRetry's, so it neither waits out a Retry-After of any length
// nor repeats at once, and one that only shortens MaxDelay still retries (a
// zero MaxRetries turned retries off until 2.11.3); a negative MaxRetries,
// or NoRetries, turns them off.
func TestRetryPolicyFillsZeroFields(t *testing.T) {
	for _, tc := range []struct {
		name      string
		give, got Retry
	}{
		{"retries alone", Retry{MaxRetries: 3}, Retry{MaxRetries: 3, BaseDelay: DefaultRetry.BaseDelay, MaxDelay: DefaultRetry.MaxDelay, InUseFor: DefaultRetry.InUseFor}},
		{"a shorter wait alone", Retry{MaxDelay: 10 * time.Second},
			Retry{MaxRetries: DefaultRetry.MaxRetries, BaseDelay: DefaultRetry.BaseDelay, MaxDelay: 10 * time.Second, InUseFor: DefaultRetry.InUseFor}},
		{"zero", Retry{}, DefaultRetry},
		{"off", Retry{MaxRetries: -1}, Retry{MaxRetries: -1, BaseDelay: DefaultRetry.BaseDelay, MaxDelay: DefaultRetry.MaxDelay, InUseFor: DefaultRetry.InUseFor}},
		{"as given", Retry{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Second, InUseFor: time.Minute},
			Retry{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Second, InUseFor: time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr Transport
			RetryPolicy(tc.give)(&tr)
			if tr.Retry != tc.got {
				t.Fatalf("policy %+v, want %+v", tr.Retry, tc.got)
			}
		})
	}
}

// TestDefaultRetryWaitsOutTheRateWindow: the server's rate window is 60 s
// and sliding, so a 429 after a burst carries a Retry-After of up to 60;
// the default policy waits it out (its MaxDelay of 30 s returned such a
// 429 at once), unless the request's deadline comes first.
func TestDefaultRetryWaitsOutTheRateWindow(t *testing.T) {
	r := DefaultRetry
	if !r.waits(context.Background(), 60*time.Second) || r.delay(0, 60*time.Second) != 60*time.Second {
		t.Errorf("DefaultRetry (MaxDelay %v) does not wait out a Retry-After of 60 s", r.MaxDelay)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r.waits(ctx, 60*time.Second) {
		t.Error("DefaultRetry waits out a Retry-After of 60 s past a deadline 10 s away")
	}

	// Through the transport: a deadline shorter than Retry-After: 60 gets
	// the 429 at once rather than a sleep cut short by the deadline.
	s := &script{answers: []answer{{429, map[string]string{"Retry-After": "60"},
		`{"error":{"code":"rate_limited","message":"slow down","details":null,"request_id":"r-1"}}`}, {200, nil, okBody}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	req, _ := http.NewRequestWithContext(ctx2, "GET", srv.URL+"/x", nil)
	_, err := NewTransport("svc_live_k").Do(req)
	var e *APIError
	if !errors.As(err, &e) || e.Code != "rate_limited" || e.RetryAfter != time.Minute || len(s.seen) != 1 || ctx2.Err() != nil {
		t.Fatalf("err = %v after %d attempts (context: %v), want the 429 at once", err, len(s.seen), ctx2.Err())
	}
}

// cutOff is a server whose first cut answers (status 200, a Content-Length
// of the whole body) stop mid-body and close the connection; later ones
// are whole.
type cutOff struct {
	mu   sync.Mutex
	cuts int
	seen []seenRequest
}

func (c *cutOff) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.seen = append(c.seen, seenRequest{r.Method, r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization"), string(body)})
	cut := len(c.seen) <= c.cuts
	c.mu.Unlock()
	if !cut {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, okBody)
		return
	}
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(okBody), okBody[:len(okBody)/2])
	_ = buf.Flush()
}

// TestCutOffAnswerIsRetried: a success answer cut off mid-body is an answer
// lost like one that never came: a request that is safe to repeat (a read,
// a keyed write with a body that can be sent again) is sent again, with the
// same key, and its answer is read whole; a write that is not repeated (a
// stream body, no key) is a *LostAnswerError at once, with the key it was
// sent with or none (it was handed on as it came, and the generated parser
// failed with a bare unexpected EOF). A keyed write given up on names its
// key.
func TestCutOffAnswerIsRetried(t *testing.T) {
	fast := RetryPolicy(Retry{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	for _, tt := range []struct {
		name         string
		method       string
		opts         []Option
		streamed     bool // a body without GetBody: sent only once
		cuts         int
		wantAttempts int
		wantErr      bool // Do fails (else the body is read)
		wantBody     bool // the body reads whole
	}{
		{"read", "GET", []Option{fast}, false, 1, 2, false, true},
		{"keyed write", "POST", []Option{fast}, false, 1, 2, false, true},
		{"unkeyed write", "POST", []Option{fast, NoAutoIdempotencyKey()}, false, 1, 1, true, false},
		{"keyed write with a streamed body", "POST", []Option{fast}, true, 1, 1, true, false},
		{"unkeyed write with a streamed body", "DELETE", []Option{fast, NoAutoIdempotencyKey()}, true, 1, 1, true, false},
		{"retries run out", "PATCH", []Option{fast}, false, 5, 3, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &cutOff{cuts: tt.cuts}
			srv := httptest.NewServer(c)
			defer srv.Close()
			var body io.Reader = strings.NewReader(`{"a":1}`)
			if tt.streamed {
				body = struct{ io.Reader }{body}
			}
			if tt.method == "GET" {
				body = nil
			}
			req, _ := http.NewRequestWithContext(context.Background(), tt.method, srv.URL+"/x", body)
			res, err := NewTransport("svc_live_k", tt.opts...).Do(req)
			if len(c.seen) != tt.wantAttempts {
				t.Errorf("%d attempts, want %d", len(c.seen), tt.wantAttempts)
			}
			key := c.seen[0].idempotencyKey
			for _, r := range c.seen {
				if r.idempotencyKey != key {
					t.Errorf("attempt with key %q, the first had %q", r.idempotencyKey, key)
				}
			}
			if tt.wantErr {
				var e *APIError
				if err == nil || errors.As(err, &e) || !strings.Contains(err.Error(), key) || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("err = %v, want the cut answer's error naming the key %q", err, key)
				}
				if lost, ok := errors.AsType[*LostAnswerError](err); !ok || lost.IdempotencyKey != key || IdempotencyKeyOf(err) != key {
					t.Fatalf("err = %v (%T), want a *LostAnswerError with the key sent, %q", err, err, key)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			got, rerr := io.ReadAll(res.Body)
			res.Body.Close()
			if tt.wantBody && (rerr != nil || string(got) != okBody) {
				t.Fatalf("body %q, %v; want the whole answer", got, rerr)
			}
			if !tt.wantBody && rerr == nil {
				t.Fatalf("body %q read without error, want the cut answer as it came", got)
			}
		})
	}
}

// TestCutOffWriteThroughTheGeneratedClient: the generated ...WithResponse
// method of a write that is not repeated, a keyed one with a stream body
// or an unkeyed one, returns the transport's *LostAnswerError when its 201
// is cut off mid-body, with the key that was sent (the generated parser
// returned a bare unexpected EOF, and the key was lost with it), and says
// whether it may be sent again.
func TestCutOffWriteThroughTheGeneratedClient(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   []Option
		key    string // the caller's
		retry  bool   // Retryable
		stream bool
	}{
		{"keyed write with a stream body", nil, "", true, true},
		{"caller's key with a stream body", nil, "order-44", true, true},
		{"unkeyed write", []Option{NoAutoIdempotencyKey()}, "", false, false},
		{"unkeyed write with a stream body", []Option{NoAutoIdempotencyKey()}, "", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &cutOff{cuts: 1}
			srv := httptest.NewServer(c)
			defer srv.Close()
			api, err := New(srv.URL+"/api/v2", "svc_live_k", append(tt.opts, RetryPolicy(Retry{BaseDelay: time.Millisecond}))...)
			if err != nil {
				t.Fatal(err)
			}
			var body io.Reader = strings.NewReader(`{"name":"Acme"}`)
			if tt.stream {
				body = struct{ io.Reader }{body} // no GetBody: sent once
			}
			var params *CreateClientParams
			if tt.key != "" {
				params = &CreateClientParams{IdempotencyKey: &tt.key}
			}
			res, err := api.CreateClientWithBodyWithResponse(context.Background(), params, "application/json", body)
			sent := c.seen[0].idempotencyKey
			lost, ok := errors.AsType[*LostAnswerError](err)
			if !ok || res != nil || len(c.seen) != 1 || lost.IdempotencyKey != sent || IdempotencyKeyOf(err) != sent ||
				tt.key != "" && sent != tt.key || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("err = %v (%T) after %d attempts, sent key %q; want one attempt and a *LostAnswerError naming it", err, err, len(c.seen), sent)
			}
			if (sent == "") != (tt.opts != nil) {
				t.Fatalf("sent key %q with options %v", sent, tt.opts)
			}
			if _, ok := Retryable(err); ok != tt.retry {
				t.Fatalf("Retryable(%v) = %v, want %v", err, ok, tt.retry)
			}
		})
	}
}

// TestLongAnswerIsAStream: an answer past maxBuffered is not held in
// memory: Do returns once the headers and the start have come, and the
// caller reads the rest as a stream.
func TestLongAnswerIsAStream(t *testing.T) {
	defer func(n int64) { maxBuffered = n }(maxBuffered)
	maxBuffered = 16
	for _, chunked := range []bool{false, true} {
		release := make(chan struct{})
		var finished atomic.Bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !chunked {
				w.Header().Set("Content-Length", fmt.Sprint(len(okBody)))
			}
			_, _ = io.WriteString(w, okBody[:20])
			w.(http.Flusher).Flush()
			select { // the rest once the caller has its answer
			case <-release:
			case <-time.After(5 * time.Second):
			}
			_, _ = io.WriteString(w, okBody[20:])
			finished.Store(true)
		}))
		req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
		res, err := NewTransport("svc_live_k").Do(req)
		if err != nil {
			t.Fatal(err)
		}
		early := !finished.Load()
		close(release)
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		if !early || err != nil || string(got) != okBody {
			t.Fatalf("chunked %v: returned before the end %v, body %q, %v; want a stream of the whole answer", chunked, early, got, err)
		}
	}
}

// TestGivingUpOnAWriteNamesItsKey: when the transport gives up on a write
// whose answer never came, the write may have been applied; its error names
// the Idempotency-Key it was sent with, the only key with which repeating
// it is safe (a new call gets a fresh key).
func TestGivingUpOnAWriteNamesItsKey(t *testing.T) {
	fast := RetryPolicy(Retry{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	for _, tt := range []struct {
		name, method, key string
	}{
		{"added key", "POST", ""},
		{"caller's key", "PATCH", "order-42"},
		{"read", "GET", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{answers: []answer{{}}} // never an answer
			srv := httptest.NewServer(s)
			defer srv.Close()
			req, _ := http.NewRequest(tt.method, srv.URL+"/x", strings.NewReader(`{"a":1}`))
			if tt.key != "" {
				req.Header.Set("Idempotency-Key", tt.key)
			}
			_, err := NewTransport("svc_live_k", fast).Do(req)
			var e *APIError
			if err == nil || errors.As(err, &e) || len(s.seen) != 2 {
				t.Fatalf("err = %v after %d attempts, want the transport's error after 2", err, len(s.seen))
			}
			sent := s.seen[0].idempotencyKey
			// The key is typed, not only in the text.
			var lost *LostAnswerError
			if tt.method == "GET" {
				sent = ""
			}
			if IdempotencyKeyOf(err) != sent || errors.As(err, &lost) != (tt.method != "GET") {
				t.Errorf("IdempotencyKeyOf = %q, LostAnswerError %v; want %q", IdempotencyKeyOf(err), lost != nil, sent)
			}
			sent = s.seen[0].idempotencyKey
			if named := strings.Contains(err.Error(), "Idempotency-Key"); named != (tt.method != "GET") ||
				named && !strings.Contains(err.Error(), `"`+sent+`"`) || tt.key != "" && sent != tt.key {
				t.Fatalf("err = %v; sent key %q", err, sent)
			}
		})
	}
}

// TestAnUnkeyedWriteWithoutAnAnswerIsLost: a write sent without an
// Idempotency-Key (NoAutoIdempotencyKey) is not sent again when its answer
// never came, and its error is a *LostAnswerError with no key, which says
// the write may have been applied, where a bare transport error told
// nothing of it.
func TestAnUnkeyedWriteWithoutAnAnswerIsLost(t *testing.T) {
	s := &script{answers: []answer{{}}} // never an answer
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/x", strings.NewReader(`{"a":1}`))
	_, err := NewTransport("svc_live_k", NoAutoIdempotencyKey()).Do(req)
	lost, ok := errors.AsType[*LostAnswerError](err)
	if !ok || lost.IdempotencyKey != "" || len(s.seen) != 1 || s.seen[0].idempotencyKey != "" {
		t.Fatalf("err = %v (%T) after %d attempts; want one unkeyed attempt and a *LostAnswerError without a key", err, err, len(s.seen))
	}
	if !strings.Contains(err.Error(), "without an Idempotency-Key") || IdempotencyKeyOf(err) != "" {
		t.Fatalf("err = %v; want it to say the write was sent without a key", err)
	}
	if _, ok := errors.AsType[*url.Error](err); !ok {
		t.Fatalf("err = %v; want the transport's *url.Error inside", err)
	}
}

// TestAnUnkeyedWriteAnswerThatIsNotJSON: an unkeyed write's 2xx answer that
// says JSON and is not JSON (a body a gateway mangled) is a
// *LostAnswerError without a key, as a keyed write's names its key: the
// generated parser would fail with a plain error that does not say the
// write may have been applied.
func TestAnUnkeyedWriteAnswerThatIsNotJSON(t *testing.T) {
	for _, opts := range [][]Option{nil, {NoAutoIdempotencyKey()}} {
		s := &script{answers: []answer{{201, nil, okBody[:len(okBody)/2]}}}
		srv := httptest.NewServer(s)
		req, _ := http.NewRequest("POST", srv.URL+"/x", struct{ io.Reader }{strings.NewReader(`{"a":1}`)})
		_, err := NewTransport("svc_live_k", opts...).Do(req)
		srv.Close()
		lost, ok := errors.AsType[*LostAnswerError](err)
		if !ok || len(s.seen) != 1 || lost.IdempotencyKey != s.seen[0].idempotencyKey || !strings.Contains(err.Error(), "not the JSON") {
			t.Fatalf("options %v: err = %v (%T) after %d attempts; want a *LostAnswerError with the key sent, %q",
				opts, err, err, len(s.seen), s.seen[0].idempotencyKey)
		}
	}
}

// TestAnAPIErrorOfAWriteNamesItsKey: the *APIError of a write the transport
// did not repeat (here a 409 idempotency_key_in_use past its retries)
// carries the Idempotency-Key it was sent with, the transport's own or the
// caller's, to repeat it with; a read's carries none.
func TestAnAPIErrorOfAWriteNamesItsKey(t *testing.T) {
	once := NoRetries()
	inUse := answer{409, map[string]string{"Retry-After": "1"}, `{"error":{"code":"idempotency_key_in_use","message":"in use","details":null,"request_id":"r-9"}}`}
	for _, tt := range []struct{ name, method, key string }{
		{"added key", "POST", ""},
		{"caller's key", "DELETE", "order-43"},
		{"added key of a DELETE", "DELETE", ""},
		{"read", "GET", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{answers: []answer{inUse}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			req, _ := http.NewRequest(tt.method, srv.URL+"/x", nil)
			if tt.key != "" {
				req.Header.Set("Idempotency-Key", tt.key)
			}
			_, err := NewTransport("svc_live_k", once).Do(req)
			var e *APIError
			if !errors.As(err, &e) || e.Code != "idempotency_key_in_use" {
				t.Fatalf("err = %v, want the 409", err)
			}
			want := s.seen[0].idempotencyKey
			if tt.method == "GET" {
				want = ""
			}
			if e.IdempotencyKey != want || IdempotencyKeyOf(fmt.Errorf("wrapped: %w", err)) != want || tt.key != "" && want != tt.key {
				t.Errorf("IdempotencyKey %q, want %q (sent %q)", e.IdempotencyKey, want, s.seen[0].idempotencyKey)
			}
		})
	}
}

// TestAReplayedRefusalSaysSo: a stored answer replayed under its key
// (Idempotent-Replayed: true) is marked on its *APIError, so that a caller
// can tell a refusal of then from one of now.
func TestAReplayedRefusalSaysSo(t *testing.T) {
	refusal := `{"error":{"code":"overbook_blocked","message":"not enough stock","details":{"deficit":1},"request_id":"r-8"}}`
	for _, tt := range []struct {
		name    string
		headers map[string]string
		want    bool
	}{
		{"first answer", nil, false},
		{"replayed", map[string]string{"Idempotent-Replayed": "true"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&script{answers: []answer{{422, tt.headers, refusal}}})
			defer srv.Close()
			req, _ := http.NewRequest("POST", srv.URL+"/x", strings.NewReader(`{"a":1}`))
			_, err := NewTransport("svc_live_k").Do(req)
			var e *APIError
			if !errors.As(err, &e) || e.Replayed != tt.want {
				t.Fatalf("err = %#v, want Replayed %v", err, tt.want)
			}
		})
	}
}

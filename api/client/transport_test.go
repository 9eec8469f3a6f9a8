package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
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
		{"503 on an unkeyed write is not retried", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{down, {201, nil, okBody}}, 1, 503, "service_unavailable", "r-2"},
		{"429 on an unkeyed write is retried", "POST", []Option{fast, NoAutoIdempotencyKey()}, []answer{{429, nil, busy.body}, {201, nil, okBody}}, 2, 0, "", ""},
		{"retries run out", "GET", []Option{fast}, []answer{down}, 3, 503, "service_unavailable", "r-2"},
		{"4xx is a typed error at once", "POST", []Option{fast}, []answer{{422, nil,
			`{"error":{"code":"overbook_blocked","message":"not enough stock","details":{"deficit":3},"request_id":"r-3"}}`}}, 1, 422, "overbook_blocked", "r-3"},
		{"v1 envelope takes the request id from the header", "PATCH", []Option{fast}, []answer{{400,
			map[string]string{"X-Request-Id": "r-4"}, `{"error":{"code":"BAD_REQUEST","message":"weight_lbs: must be a positive number"}}`}}, 1, 400, "BAD_REQUEST", "r-4"},
		{"a body that is not the envelope", "GET", []Option{fast}, []answer{{502, nil, "bad gateway"}}, 1, 502, "", ""},
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
			wantKeyed := (tt.method == "POST" || tt.method == "PATCH") && !strings.Contains(tt.name, "unkeyed")
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
		{"soon", 0},
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

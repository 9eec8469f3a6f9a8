package config

import (
	"strings"
	"testing"
	"time"
)

// EVENTAPI_REDIS_LIMITER_TIMEOUT is refused outside 1ms..1s: 50 ms is the
// default, not the ceiling (api/edgetest runs a patient 1 s limiter), but a
// bound past the socket ceiling, or one a healthy Redis cannot meet, is a
// mistake that would only show as latency or as limiting silently off.
func TestLimiterTimeoutRange(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration // when accepted
		bad   bool
	}{
		{value: "", want: 0}, // platform/edge's default, 50 ms
		{value: "1ms", want: time.Millisecond},
		{value: "50ms", want: 50 * time.Millisecond},
		{value: "1s", want: time.Second},
		{value: "999us", bad: true},
		{value: "50us", bad: true},
		{value: "1001ms", bad: true},
		{value: "5s", bad: true},
		{value: "1h", bad: true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_REDIS_LIMITER_TIMEOUT": tc.value}
			c, err := FromEnv(func(k string) string { return env[k] })
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), `EVENTAPI_REDIS_LIMITER_TIMEOUT "`+tc.value+`" must be from 1ms to 1s`) {
					t.Fatalf("error %v, want EVENTAPI_REDIS_LIMITER_TIMEOUT %q refused with its range", err, tc.value)
				}
				return
			}
			if err != nil || c.Redis.LimiterTimeout != tc.want {
				t.Fatalf("LimiterTimeout %v, error %v; want %v", c.Redis.LimiterTimeout, err, tc.want)
			}
		})
	}
}

// EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT is refused outside 10ms..10m: 1µs
// was accepted and made every keyed write 503 and /readyz report a healthy
// Redis unavailable; a 10-minute bound is what api/edgetest's crash test
// runs, and "500m" (minutes, for 500 ms) is past it.
func TestIdempotencyTimeoutRange(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration // when accepted
		bad   bool
	}{
		{value: "", want: 0}, // platform/edge's default, 500 ms
		{value: "10ms", want: 10 * time.Millisecond},
		{value: "500ms", want: 500 * time.Millisecond},
		{value: "4s", want: 4 * time.Second},
		{value: "10m", want: 10 * time.Minute},
		{value: "1us", bad: true},
		{value: "1ms", bad: true},
		{value: "9999us", bad: true},
		{value: "10m1ms", bad: true},
		{value: "500m", bad: true},
		{value: "24h", bad: true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": tc.value}
			c, err := FromEnv(func(k string) string { return env[k] })
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), `EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT "`+tc.value+`" must be from 10ms to 10m0s`) {
					t.Fatalf("error %v, want EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT %q refused with its range", err, tc.value)
				}
				if strings.Count(err.Error(), "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT") != 1 {
					t.Fatalf("error %v names the setting more than once (a refused bound is not compared with the socket timeouts)", err)
				}
				return
			}
			if err != nil || c.Redis.IdempotencyTimeout != tc.want {
				t.Fatalf("IdempotencyTimeout %v, error %v; want %v", c.Redis.IdempotencyTimeout, err, tc.want)
			}
		})
	}
}

// A read or write timeout set below a per-call bound (the limiter's or the
// idempotency records', as set or by default) is refused: go-redis ends each
// call at the shorter of the two, so EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT=4s
// with a 1s read timeout gave 1 s attempts. Unset socket timeouts are
// accepted whatever the per-call bounds: platform/edge raises them.
func TestSocketTimeoutsCoverPerCallBounds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantErr []string // empty: accepted
	}{
		{name: "unset socket timeouts, long idempotency bound",
			env: map[string]string{"EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "4s"}},
		{name: "equal to the per-call bounds",
			env: map[string]string{"EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "4s", "EVENTAPI_REDIS_LIMITER_TIMEOUT": "1s",
				"EVENTAPI_REDIS_READ_TIMEOUT": "4s", "EVENTAPI_REDIS_WRITE_TIMEOUT": "4s"}},
		{name: "above the defaults", env: map[string]string{"EVENTAPI_REDIS_READ_TIMEOUT": "500ms", "EVENTAPI_REDIS_WRITE_TIMEOUT": "2s"}},
		{name: "read below the idempotency bound",
			env:     map[string]string{"EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "4s", "EVENTAPI_REDIS_READ_TIMEOUT": "1s"},
			wantErr: []string{`EVENTAPI_REDIS_READ_TIMEOUT "1s" is shorter than EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT (4s)`}},
		{name: "write below the idempotency bound's default",
			env:     map[string]string{"EVENTAPI_REDIS_WRITE_TIMEOUT": "300ms"},
			wantErr: []string{`EVENTAPI_REDIS_WRITE_TIMEOUT "300ms" is shorter than EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT (500ms, the default)`}},
		{name: "both below the limiter bound",
			env: map[string]string{"EVENTAPI_REDIS_LIMITER_TIMEOUT": "800ms", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "100ms",
				"EVENTAPI_REDIS_READ_TIMEOUT": "700ms", "EVENTAPI_REDIS_WRITE_TIMEOUT": "600ms"},
			wantErr: []string{`EVENTAPI_REDIS_READ_TIMEOUT "700ms" is shorter than EVENTAPI_REDIS_LIMITER_TIMEOUT (800ms)`,
				`EVENTAPI_REDIS_WRITE_TIMEOUT "600ms" is shorter than EVENTAPI_REDIS_LIMITER_TIMEOUT (800ms)`}},
		{name: "a refused per-call bound is not compared again",
			env:     map[string]string{"EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "soon", "EVENTAPI_REDIS_READ_TIMEOUT": "100ms"},
			wantErr: []string{`EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT "soon"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db"}
			for k, v := range tc.env {
				env[k] = v
			}
			_, err := FromEnv(func(k string) string { return env[k] })
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted, want refused")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			want := 0 // no comparison is refused but those expected
			for _, w := range tc.wantErr {
				want += strings.Count(w, "is shorter than")
			}
			if got := strings.Count(err.Error(), "is shorter than"); got != want {
				t.Errorf("error %q: %d comparisons refused, want %d", err, got, want)
			}
		})
	}
}

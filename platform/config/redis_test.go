package config

import (
	"strings"
	"testing"
	"time"
)

// The Redis bounds are refused outside their ranges (docs/edge.md, "Redis
// client settings"), each named once with its range:
//   - EVENTAPI_REDIS_LIMITER_TIMEOUT, 1ms..1s: 50 ms is the default, not the
//     ceiling (api/edgetest runs a patient 1 s limiter), but a bound past the
//     socket ceiling, or one a healthy Redis cannot meet, is a mistake that
//     would only show as latency or as limiting silently off;
//   - EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT, 10ms..10m: 1µs was accepted and
//     made every keyed write 503 and /readyz report a healthy Redis
//     unavailable; a 10-minute bound is what api/edgetest's crash test runs,
//     and "500m" (minutes, for 500 ms) is past it;
//   - EVENTAPI_REDIS_DIAL_TIMEOUT, 10ms..1m: 1ns was accepted and started a
//     process that never opened a connection, with rate limiting off.
func TestRedisBoundRanges(t *testing.T) {
	limiter := func(c Config) time.Duration { return c.Redis.LimiterTimeout }
	records := func(c Config) time.Duration { return c.Redis.IdempotencyTimeout }
	dial := func(c Config) time.Duration { return c.Redis.DialTimeout }
	for _, tc := range []struct {
		setting string
		value   string
		read    func(Config) time.Duration
		want    time.Duration // when accepted
		refused string        // the range, when refused
	}{
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "", read: limiter, want: 0}, // platform/edge's default, 50 ms
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "1ms", read: limiter, want: time.Millisecond},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "50ms", read: limiter, want: 50 * time.Millisecond},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "1s", read: limiter, want: time.Second},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "999us", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "50us", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "1001ms", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "5s", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "1h", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "0ms", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "-5ms", refused: "from 1ms to 1s"},
		{setting: "EVENTAPI_REDIS_LIMITER_TIMEOUT", value: "soon", refused: "a duration from 1ms to 1s, such as 1ms"},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "", read: records, want: 0}, // platform/edge's default, 500 ms
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "10ms", read: records, want: 10 * time.Millisecond},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "500ms", read: records, want: 500 * time.Millisecond},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "4s", read: records, want: 4 * time.Second},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "10m", read: records, want: 10 * time.Minute},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "1us", refused: "from 10ms to 10m0s"},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "1ms", refused: "from 10ms to 10m0s"},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "9999us", refused: "from 10ms to 10m0s"},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "10m1ms", refused: "from 10ms to 10m0s"},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "500m", refused: "from 10ms to 10m0s"},
		{setting: "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", value: "24h", refused: "from 10ms to 10m0s"},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "", read: dial, want: 0}, // platform/edge's default, 500 ms
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "10ms", read: dial, want: 10 * time.Millisecond},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "2s", read: dial, want: 2 * time.Second},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "1m", read: dial, want: time.Minute},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "1ns", refused: "from 10ms to 1m0s"},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "9ms", refused: "from 10ms to 1m0s"},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "500m", refused: "from 10ms to 1m0s"},
		{setting: "EVENTAPI_REDIS_DIAL_TIMEOUT", value: "0", refused: "from 10ms to 1m0s"},
	} {
		t.Run(tc.setting+"="+tc.value, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db", tc.setting: tc.value}
			c, err := FromEnv(func(k string) string { return env[k] })
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.setting+` "`+tc.value+`" must be `+tc.refused) {
					t.Fatalf("error %v, want %s %q refused with its range", err, tc.setting, tc.value)
				}
				if strings.Count(err.Error(), tc.setting) != 1 {
					t.Fatalf("error %v names the setting more than once (a refused bound is not compared with the socket timeouts)", err)
				}
				return
			}
			if got := tc.read(c); err != nil || got != tc.want {
				t.Fatalf("%s read as %v, error %v; want %v", tc.setting, got, err, tc.want)
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

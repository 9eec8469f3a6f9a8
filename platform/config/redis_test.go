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

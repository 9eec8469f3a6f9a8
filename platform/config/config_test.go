package config

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestFromEnv(t *testing.T) {
	base := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr []string
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults", env: base, check: func(t *testing.T, c Config) {
			if c.Addr != ":8080" || c.RateWindow != time.Minute || c.V1RateLimit != 100 || c.V2RateLimit != 1000 || c.RedisURL != "" {
				t.Fatalf("unexpected defaults: %+v", c)
			}
		}},
		{name: "missing database", env: map[string]string{}, wantErr: []string{"EVENTAPI_DATABASE_URL is required"}},
		{name: "trusted proxies", env: map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db",
			"EVENTAPI_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7"},
			check: func(t *testing.T, c Config) {
				if len(c.TrustedProxies) != 2 || c.TrustedProxies[1].String() != "192.168.1.7/32" {
					t.Fatalf("TrustedProxies = %v", c.TrustedProxies)
				}
			}},
		{name: "trusted proxies must be addresses", env: map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db",
			"EVENTAPI_TRUSTED_PROXIES": "10.0.0.0/8, lb.internal"}, wantErr: []string{"EVENTAPI_TRUSTED_PROXIES", "lb.internal"}},
		{name: "large reads: one per usable CPU, plus one", env: base, check: func(t *testing.T, c Config) {
			if c.LargeReads != runtime.GOMAXPROCS(0)+1 {
				t.Fatalf("LargeReads = %d, want %d", c.LargeReads, runtime.GOMAXPROCS(0)+1)
			}
		}},
		{name: "large reads set", env: map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_LARGE_READS": "3"},
			check: func(t *testing.T, c Config) {
				if c.LargeReads != 3 {
					t.Fatalf("LargeReads = %d, want 3", c.LargeReads)
				}
			}},
		{name: "large reads must be positive", env: map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_LARGE_READS": "0"},
			wantErr: []string{"EVENTAPI_LARGE_READS"}},
		{name: "observability defaults", env: base, check: func(t *testing.T, c Config) {
			// Zero: platform/requestlog applies its own defaults.
			if c.MetricsAddr != ":9464" || c.RequestLogRetention != 0 || c.RequestLogBuffer != 0 ||
				c.RequestLogFlushInterval != 0 {
				t.Fatalf("unexpected defaults: %+v", c)
			}
		}},
		{name: "observability overrides", env: map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db",
			"EVENTAPI_METRICS_ADDR": "127.0.0.1:0", "EVENTAPI_REQUEST_LOG_RETENTION": "72h", "EVENTAPI_REQUEST_LOG_BUFFER": "5",
			"EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL": "250ms"},
			check: func(t *testing.T, c Config) {
				if c.MetricsAddr != "127.0.0.1:0" || c.RequestLogRetention != 72*time.Hour || c.RequestLogBuffer != 5 ||
					c.RequestLogFlushInterval != 250*time.Millisecond {
					t.Fatalf("overrides not applied: %+v", c)
				}
			}},
		{name: "bad observability settings", env: map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db",
			"EVENTAPI_METRICS_ADDR": "metrics", "EVENTAPI_REQUEST_LOG_RETENTION": "90d", "EVENTAPI_REQUEST_LOG_BUFFER": "0",
			"EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL": "0s"},
			wantErr: []string{"EVENTAPI_METRICS_ADDR", "EVENTAPI_REQUEST_LOG_RETENTION", "EVENTAPI_REQUEST_LOG_BUFFER",
				"EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL"}},
		{name: "every bad value reported", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "mysql://x", "EVENTAPI_REDIS_URL": "http://x", "EVENTAPI_ADDR": "nope",
			"EVENTAPI_RATE_WINDOW": "soon", "EVENTAPI_V1_RATE_LIMIT": "-1", "EVENTAPI_LOG_LEVEL": "loud",
		}, wantErr: []string{"EVENTAPI_DATABASE_URL must be", "EVENTAPI_REDIS_URL", "EVENTAPI_ADDR", "EVENTAPI_RATE_WINDOW", "EVENTAPI_V1_RATE_LIMIT", "EVENTAPI_LOG_LEVEL"}},
		{name: "overrides", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "postgresql://u@h/db", "EVENTAPI_REDIS_URL": "redis://127.0.0.1:6379/0",
			"EVENTAPI_ADDR": "127.0.0.1:9090", "EVENTAPI_RATE_WINDOW": "2s", "EVENTAPI_V2_RATE_LIMIT": "50",
		}, check: func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:9090" || c.RateWindow != 2*time.Second || c.V2RateLimit != 50 || c.RedisURL == "" {
				t.Fatalf("overrides not applied: %+v", c)
			}
		}},
		{name: "redis cluster and client settings", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_REDIS_URL": "redis+cluster://127.0.0.1:7101,127.0.0.1:7102",
			"EVENTAPI_REDIS_POOL_SIZE": "80", "EVENTAPI_REDIS_LIMITER_TIMEOUT": "30ms", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "2s",
			"EVENTAPI_REDIS_DIAL_TIMEOUT": "1s", "EVENTAPI_REDIS_READ_TIMEOUT": "3s", "EVENTAPI_REDIS_WRITE_TIMEOUT": "4s",
		}, check: func(t *testing.T, c Config) {
			want := Redis{LimiterTimeout: 30 * time.Millisecond, IdempotencyTimeout: 2 * time.Second, PoolSize: 80,
				DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 4 * time.Second}
			if c.Redis != want {
				t.Fatalf("Redis = %+v, want %+v", c.Redis, want)
			}
		}},
		{name: "redis seed nodes with EVENTAPI_REDIS_CLUSTER", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_REDIS_URL": "redis://10.0.0.1:6379,10.0.0.2:6379", "EVENTAPI_REDIS_CLUSTER": "true",
		}, check: func(t *testing.T, c Config) {
			if !c.Redis.Cluster || c.Redis.PoolSize != 0 {
				t.Fatalf("Redis = %+v, want cluster with the defaults left to the edge store", c.Redis)
			}
		}},
		{name: "bad redis settings", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_REDIS_URL": "redis+sentinel://x",
			"EVENTAPI_REDIS_CLUSTER": "maybe", "EVENTAPI_REDIS_POOL_SIZE": "0", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT": "-1s",
		}, wantErr: []string{"EVENTAPI_REDIS_URL: must be", "EVENTAPI_REDIS_CLUSTER", "EVENTAPI_REDIS_POOL_SIZE", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT"}},
		// What the drivers would refuse at connect is reported at start,
		// with the other settings' problems in one message.
		{name: "URLs the drivers refuse, and one port for two listeners", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "postgres://u:secret@h/db?sslmode=bogus", "EVENTAPI_REDIS_URL": "redis://127.0.0.1:6379/x",
			"EVENTAPI_ADDR": ":8080", "EVENTAPI_METRICS_ADDR": "127.0.0.1:8080", "EVENTAPI_LOG_LEVEL": "loud",
		}, wantErr: []string{"EVENTAPI_DATABASE_URL: ", "sslmode", "EVENTAPI_REDIS_URL: ", "EVENTAPI_METRICS_ADDR \"127.0.0.1:8080\" must differ", "EVENTAPI_LOG_LEVEL"}},
		{name: "a cluster URL without seed nodes", env: map[string]string{
			"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_REDIS_URL": "redis+cluster://",
		}, wantErr: []string{"EVENTAPI_REDIS_URL: names no Redis Cluster seed node"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(func(k string) string { return tt.env[k] })
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatal("expected error")
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error %q shows a password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// EVENTAPI_RATE_WINDOW is a whole number of seconds, at least one: the Redis
// limiter keeps the window in whole microseconds (999ns was 0 there and
// admitted everything), and a 429 reports window_seconds (500ms said 0).
func TestRateWindow(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration // when accepted
		bad   bool
	}{
		{value: "", want: time.Minute},
		{value: "60s", want: time.Minute},
		{value: "1s", want: time.Second},
		{value: "2m", want: 2 * time.Minute},
		{value: "1h", want: time.Hour},
		{value: "1000ms", want: time.Second},
		{value: "999ns", bad: true},
		{value: "500ms", bad: true},
		{value: "999ms", bad: true},
		{value: "1.5s", bad: true},
		{value: "90500ms", bad: true},
		{value: "0s", bad: true},
		{value: "-60s", bad: true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db", "EVENTAPI_RATE_WINDOW": tc.value}
			c, err := FromEnv(func(k string) string { return env[k] })
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), `EVENTAPI_RATE_WINDOW "`+tc.value+`" must be`) {
					t.Fatalf("error %v, want EVENTAPI_RATE_WINDOW %q refused", err, tc.value)
				}
				if strings.Count(err.Error(), "EVENTAPI_RATE_WINDOW") != 1 {
					t.Fatalf("error %q reports EVENTAPI_RATE_WINDOW more than once", err)
				}
				return
			}
			if err != nil || c.RateWindow != tc.want {
				t.Fatalf("RateWindow %v, error %v; want %v", c.RateWindow, err, tc.want)
			}
		})
	}
}
